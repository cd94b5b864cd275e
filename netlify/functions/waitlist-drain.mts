// A backlog of mail sent at the provider's pace, started by the site's own functions (netlify/drain.ts).
// https://docs.netlify.com/build/functions/get-started/
import type { Config, Context } from "@netlify/functions";
import { drain } from "../drain";

export default (request: Request, context: Context) => drain(request, context);

export const config: Config = { path: "/waitlist/drain" };
