// Every five minutes on Netlify: the confirmations owed, then the ledger the founders' commands read.
// https://docs.netlify.com/build/functions/scheduled-functions/
import type { Config } from "@netlify/functions";
import { sweep } from "../sweep";

export default () => sweep();

export const config: Config = { schedule: "*/5 * * * *" };
