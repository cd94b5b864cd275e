import escapeHtml from "escape-html";
import { site } from "../../config/site";
import { confirmUrl, leaveUrl } from "../tokens";
import type { WaitlistSite } from "../site-settings";
import { leaveHeaders, mailButton, mailHtml, mailLink as link, messageIdFor, paragraph as p } from "./message-frame";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The same for every attempt at one message (a signup's confirmation): a resend after a crash is the same message. */
  messageId: string;
  headers: Record<string, string>;
}

/**
 * A Message-ID that names one signup's confirmation, from what identifies
 * the signup (`seed`: the address's key and when it was stored, or Netlify's
 * submission id).
 */
const confirmationMessageId = (seed: string, siteUrl: string) => messageIdFor("confirmation", seed, siteUrl);

/**
 * The confirmation every new signup gets (double opt-in): plain text and
 * simple HTML, no images, no tracking, readable in a narrow mail client. Its
 * one clear next step is the personal "Confirm my spot" link; with it, a
 * personal link to leave the list (also in List-Unsubscribe, for the mail
 * client's own button, RFC 8058). `seed` identifies the signup
 * (confirmationMessageId), `createdAt` is when it was stored (the confirm
 * link is for that signup), `linkSecret` signs both links (tokens.ts).
 */
/** The id of the Privacy Policy's "Your Right to Object" section, as the page's headings get theirs (rehype-slug). */
export const objectAnchor = "your-right-to-object";

export function confirmationMessage(
  to: string,
  {
    seed,
    createdAt,
    linkSecret,
    siteUrl: url,
    contactEmail: contact,
  }: { seed: string; createdAt: string; linkSecret: string } & WaitlistSite,
): MailMessage {
  const privacy = `${url}${site.routes.privacyPolicy}`;
  const leave = leaveUrl(to, createdAt, linkSecret, url);
  const confirm = confirmUrl(to, createdAt, linkSecret, url);
  const { confirmLabel, unconfirmedRetentionDays } = site.waitlist;
  const host = url.replace(/^https?:\/\//, "");
  const subject = `Confirm your spot on the ${site.name} waitlist`;
  // Every sentence once; the text and the HTML part differ only in how they show them.
  const said = {
    thanks: `Thanks for joining the ${site.name} waitlist with`,
    // A repeat signup's e-mail says it too: the days count from the first asking, which a repeat never moves.
    ifNot: `If you don't confirm, we won't e-mail you again unless you sign up again, and we delete the address ${unconfirmedRetentionDays} days after we first asked you to confirm it, whether or not you sign up again.`,
    next: "What happens next",
    nextItems: [
      // Waves decide when each person gets in (let-in), not the launch's day: the promise is an e-mail when it is theirs.
      `We plan to launch in ${site.claims.launch}. Early access opens a wave at a time, in the order of signup or by the creators each person invited, and we will e-mail you when it opens for you.`,
      "Early access is free.",
      site.waitlist.consent.statement,
    ],
    questions: "Questions? Reply to this e-mail or write to",
    changedMind: "Changed your mind?",
    // Art. 21(4) GDPR: the right to object, said at the latest in the first e-mail, apart from everything else; each
    // use the Privacy Policy's "Your Right to Object" names, the ranking of a wave by invites among them.
    object:
      "Your right to object: you may object at any time to our keeping the page, campaign tag and invite code you signed up with, to our ranking you by the creators you invited when we let people in, and to the records we keep to prove your consent and to keep the site secure; and to our e-mails, which the link to leave stops at once.",
    objectLink: "How to object",
    howWeHandle: "How we handle your address:",
    because: `You get this e-mail because this address was entered on the waitlist at`,
    notYou: "If that was not you, ignore it, or",
  };
  const text = `Hi there,

${said.thanks} ${to}.

One step left: confirm your spot, so we know it was you who signed up.

${confirmLabel}:
${confirm}

${said.ifNot}

${said.next}
${said.nextItems.map((item) => `- ${item}`).join("\n")}

${said.questions} ${contact}.

${said.changedMind} Leave the waitlist:
${leave}

${said.object} ${said.objectLink}: ${privacy}#${objectAnchor}

${site.name} - ${site.tagline}
${url}/

${said.howWeHandle} ${privacy}
${said.because} ${host}. ${said.notYou} leave with the link above.
`;

  const { colors } = site;
  const card = `<h1 style="margin:0 0 12px;font-size:24px;line-height:1.25;">One step left: confirm your spot</h1>
<p style="${p}">${escapeHtml(said.thanks)} <strong>${escapeHtml(to)}</strong>. Press the button so we know it was you who signed up.</p>
${mailButton(confirm, confirmLabel)}
<p style="${p}font-size:14px;color:${colors.inkSoft};">${escapeHtml(said.ifNot)}</p>
<h2 style="margin:0 0 8px;font-size:17px;">${escapeHtml(said.next)}</h2>
<ul style="margin:0 0 16px;padding-left:20px;">
${said.nextItems.map((item) => `<li>${escapeHtml(item)}</li>`).join("\n")}
</ul>
<p style="${p}">${escapeHtml(said.questions)} <a href="mailto:${escapeHtml(contact)}" style="color:${colors.brand};">${escapeHtml(contact)}</a>.</p>
<p style="${p}">${escapeHtml(said.changedMind)} ${link(leave, "Leave the waitlist")}</p>
<p style="margin:0;font-size:14px;color:${colors.inkSoft};">${escapeHtml(said.object)} ${link(`${privacy}#${objectAnchor}`, said.objectLink)}.</p>`;
  const html = mailHtml(
    subject,
    card,
    `${escapeHtml(said.howWeHandle)} ${link(privacy, site.legalPages.privacyPolicy.title)}.<br>${escapeHtml(said.because)} ${link(`${url}/`, host)}. ${escapeHtml(said.notYou)} ${link(leave, "leave the waitlist")}.`,
  );

  return {
    to,
    subject,
    text,
    html,
    messageId: confirmationMessageId(seed, url),
    headers: leaveHeaders(leave, contact),
  };
}
