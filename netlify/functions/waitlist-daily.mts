// Once a day on Netlify (midnight UTC): the unconfirmed signups whose days are over pruned, as the Privacy Policy
// says, and any confirmation still owed sent.
// https://docs.netlify.com/build/functions/scheduled-functions/
import type { Config } from "@netlify/functions";
import { daily } from "../sweep";

export default () => daily();

export const config: Config = { schedule: "@daily" };
