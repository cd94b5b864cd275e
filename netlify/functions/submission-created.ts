// Netlify runs this after every verified form submission (spam is filtered
// out before): https://docs.netlify.com/functions/trigger-on-events/
// It sends a new waitlist signup the same confirmation as the project's own
// server, once the submission is confirmed through Netlify's API: anyone can
// post a forged event to a function's URL.
import { confirmationMessage } from "../../waitlist/confirmation-message";
import { checkEmail, maskEmail } from "../../waitlist/email-address";
import { readEnv, type Env } from "../../config/env";
import { createMailer, mailConfig } from "../../waitlist/mailer";
import {
  isOwnSiteUrl,
  netlifyForms,
  requiredLeaveSecret,
  setupProblemLine,
  submissionEmailKey,
} from "../../server/netlify-forms";
import { site } from "../../src/site";

export interface SubmissionEvent {
  body: string | null;
}

export interface FunctionResult {
  statusCode: number;
  body: string;
}

interface SubmissionPayload {
  id?: unknown;
  form_name?: unknown;
  site_url?: unknown;
  data?: Record<string, unknown>;
}

const reply = (statusCode: number, body: string): FunctionResult => ({ statusCode, body });
const log = (line: string) => console.error(`submission-created: ${line}`);

/** The problem line of a missing or bad variable, logged and answered the same way wherever it is found. */
function setupProblem(error: unknown): FunctionResult {
  const problem = (error as Error).message;
  log(`${setupProblemLine(problem)} No confirmation sent.`);
  return reply(503, `${problem}; no confirmation sent.`);
}

export async function handler(event: SubmissionEvent): Promise<FunctionResult> {
  let env: Env;
  try {
    env = readEnv();
  } catch (error) {
    return setupProblem(error);
  }
  let payload: SubmissionPayload | undefined;
  try {
    payload = (JSON.parse(event.body ?? "") as { payload?: SubmissionPayload } | null)?.payload;
  } catch {
    return reply(400, "The event body is not JSON.");
  }
  if (typeof payload !== "object" || payload === null) return reply(400, "The event has no payload.");
  const formName = payload.form_name ?? payload.data?.["form-name"];
  if (formName !== site.waitlist.formName) return reply(200, `Ignored: a submission of form "${String(formName)}".`);

  // This site's own origin, as configured and as Netlify names it; a submission elsewhere is not ours to confirm.
  if (!isOwnSiteUrl(payload.site_url, env)) {
    return reply(200, "Ignored: a submission to another site.");
  }
  const honeypot = payload.data?.[site.waitlist.honeypotField];
  if (honeypot !== undefined && honeypot !== "") return reply(200, "Ignored: the honeypot is filled.");
  const email = payload.data?.[site.waitlist.emailField];
  const checked = checkEmail(typeof email === "string" ? email : undefined);
  if (!checked.ok) return reply(400, `No confirmation sent: ${checked.reason}`);
  if (typeof payload.id !== "string" || payload.id === "") return reply(400, "The event has no submission id.");

  let forms: ReturnType<typeof netlifyForms>;
  let leaveSecret: string;
  try {
    forms = netlifyForms(env);
    leaveSecret = requiredLeaveSecret(env);
  } catch (error) {
    return setupProblem(error);
  }
  const mail = mailConfig(env);
  if (!mail.smtpUrl) {
    log("SMTP_URL is not set in Netlify's environment; no confirmation sent.");
    return reply(503, "SMTP_URL is not set; no confirmation sent.");
  }

  // The event must name a submission of this site's waitlist form that holds the same address.
  let seed: string;
  try {
    const formId = await forms.waitlistFormId();
    const stored = formId ? await forms.submission(payload.id) : undefined;
    if (!formId || !stored || stored.form_id !== formId || submissionEmailKey(stored) !== checked.key) {
      log("an event that names no matching submission of this site's waitlist form; no confirmation sent.");
      return reply(403, "No such submission in this site's waitlist form; no confirmation sent.");
    }
    // One confirmation per address: an earlier submission with the same address had it.
    const earlier = (await forms.submissions(formId)).some(
      (other) =>
        other.id !== stored.id &&
        submissionEmailKey(other) === checked.key &&
        (other.created_at < stored.created_at || (other.created_at === stored.created_at && other.id < stored.id)),
    );
    if (earlier) return reply(200, "Ignored: this address signed up before and had its confirmation.");
    seed = `netlify ${stored.id}`;
  } catch (error) {
    log(`Netlify's API could not be read (${(error as Error).message}); no confirmation sent.`);
    return reply(502, "Netlify's API could not be read; no confirmation sent.");
  }

  const mailer = createMailer(mail);
  try {
    await mailer.send(confirmationMessage(checked.email, { seed, leaveSecret }));
    return reply(200, "Confirmation sent.");
  } catch (error) {
    log(`confirmation to ${maskEmail(checked.email)} failed: ${(error as Error).message}`);
    return reply(502, "The mail server did not take the confirmation.");
  } finally {
    mailer.close();
  }
}
