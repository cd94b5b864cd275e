// Netlify runs this after every verified form submission (spam is filtered
// out before): https://docs.netlify.com/functions/trigger-on-events/
// It sends waitlist signups the same confirmation as the project's own server.
import { confirmationMessage } from "../../server/confirmation-message";
import { checkEmail, maskEmail } from "../../server/email";
import { createMailer, readMailConfig } from "../../server/mailer";
import { site } from "../../src/site";

export interface SubmissionEvent {
  body: string | null;
}

export interface FunctionResult {
  statusCode: number;
  body: string;
}

interface SubmissionPayload {
  form_name?: string;
  data?: Record<string, unknown>;
}

const reply = (statusCode: number, body: string): FunctionResult => ({ statusCode, body });

export async function handler(event: SubmissionEvent): Promise<FunctionResult> {
  let payload: SubmissionPayload | undefined;
  try {
    payload = (JSON.parse(event.body ?? "") as { payload?: SubmissionPayload }).payload;
  } catch {
    return reply(400, "The event body is not JSON.");
  }
  const formName = payload?.form_name ?? payload?.data?.["form-name"];
  if (formName !== site.waitlist.formName) return reply(200, `Ignored: a submission of form "${String(formName)}".`);

  const email = payload?.data?.[site.waitlist.emailField];
  const checked = checkEmail(typeof email === "string" ? email : undefined);
  if (!checked.ok) return reply(400, `No confirmation sent: ${checked.reason}`);

  const config = readMailConfig(process.env);
  if (!config.smtpUrl) {
    console.error("submission-created: SMTP_URL is not set in Netlify's environment; no confirmation sent.");
    return reply(500, "SMTP_URL is not set; no confirmation sent.");
  }
  const mailer = createMailer(config);
  try {
    await mailer.send(confirmationMessage(checked.email));
    return reply(200, "Confirmation sent.");
  } catch (error) {
    console.error(
      `submission-created: confirmation to ${maskEmail(checked.email)} failed: ${(error as Error).message}`,
    );
    return reply(502, "The mail server did not take the confirmation.");
  } finally {
    mailer.close();
  }
}
