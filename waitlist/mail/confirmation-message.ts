import { createHash } from "node:crypto";
import { site } from "../../config/site";
import { confirmUrl, leaveUrl } from "../tokens";
import escapeHtml from "escape-html";
import type { SiteSettings } from "../settings";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The same for every attempt at one signup's confirmation: a resend after a crash is the same message. */
  messageId: string;
  headers: Record<string, string>;
}

/**
 * A Message-ID that names one signup's confirmation, from what identifies
 * the signup (`seed`: the address's key and when it was stored, or Netlify's
 * submission id). Mail systems recognise a message sent twice by it, and the
 * outbox keeps one file per message.
 */
function confirmationMessageId(seed: string, siteUrl: string): string {
  const digest = createHash("sha256").update(seed, "utf8").digest("hex").slice(0, 32);
  return `<confirmation.${digest}@${new URL(siteUrl).hostname}>`;
}

/**
 * The confirmation every new signup gets (double opt-in): plain text and
 * simple HTML, no images, no tracking, readable in a narrow mail client. Its
 * one clear next step is the personal "Confirm my spot" link; with it, a
 * personal link to leave the list (also in List-Unsubscribe, for the mail
 * client's own button, RFC 8058). `seed` identifies the signup
 * (confirmationMessageId), `createdAt` is when it was stored (the confirm
 * link is for that signup), `linkSecret` signs both links (tokens.ts).
 */
export function confirmationMessage(
  to: string,
  {
    seed,
    createdAt,
    linkSecret,
    siteUrl: url,
    contactEmail: contact,
  }: { seed: string; createdAt: string; linkSecret: string } & SiteSettings,
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
      `We plan to launch in ${site.claims.launch}, and we will e-mail you as soon as early access opens.`,
      "Early access is free.",
      site.waitlist.consent.statement,
    ],
    questions: "Questions? Reply to this e-mail or write to",
    changedMind: "Changed your mind?",
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

${site.name} - ${site.tagline}
${url}/

${said.howWeHandle} ${privacy}
${said.because} ${host}. ${said.notYou} leave with the link above.
`;

  const p = "margin:0 0 16px;";
  const { colors } = site;
  const link = (href: string, label: string) =>
    `<a href="${escapeHtml(href)}" style="color:${colors.brand};">${escapeHtml(label)}</a>`;
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>${escapeHtml(subject)}</title>
</head>
<body style="margin:0;padding:0;background:${colors.paperTint};">
<div style="max-width:480px;margin:0 auto;padding:24px 16px;font-family:system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;font-size:16px;line-height:1.6;color:${colors.ink};">
<p style="${p}font-size:20px;font-weight:800;color:${colors.brand};">${escapeHtml(site.name)} <span style="font-weight:600;color:${colors.inkSoft};">· ${escapeHtml(site.tagline)}</span></p>
<div style="padding:24px;border-radius:16px;background:${colors.paper};">
<h1 style="margin:0 0 12px;font-size:24px;line-height:1.25;">One step left: confirm your spot</h1>
<p style="${p}">${escapeHtml(said.thanks)} <strong>${escapeHtml(to)}</strong>. Press the button so we know it was you who signed up.</p>
<p style="margin:0 0 16px;"><a href="${escapeHtml(confirm)}" style="display:inline-block;padding:12px 24px;border-radius:999px;background:${colors.brand};color:${colors.brandInk};font-weight:700;text-decoration:none;">${escapeHtml(confirmLabel)}</a></p>
<p style="${p}font-size:14px;color:${colors.inkSoft};">${escapeHtml(said.ifNot)}</p>
<h2 style="margin:0 0 8px;font-size:17px;">${escapeHtml(said.next)}</h2>
<ul style="margin:0 0 16px;padding-left:20px;">
${said.nextItems.map((item) => `<li>${escapeHtml(item)}</li>`).join("\n")}
</ul>
<p style="${p}">${escapeHtml(said.questions)} <a href="mailto:${escapeHtml(contact)}" style="color:${colors.brand};">${escapeHtml(contact)}</a>.</p>
<p style="margin:0;">${escapeHtml(said.changedMind)} ${link(leave, "Leave the waitlist")}</p>
</div>
<p style="margin:16px 0 0;font-size:13px;color:${colors.inkSoft};">${escapeHtml(said.howWeHandle)} ${link(privacy, site.legalPages.privacyPolicy.title)}.<br>${escapeHtml(said.because)} ${link(`${url}/`, host)}. ${escapeHtml(said.notYou)} ${link(leave, "leave the waitlist")}.</p>
</div>
</body>
</html>
`;

  return {
    to,
    subject,
    text,
    html,
    messageId: confirmationMessageId(seed, url),
    headers: {
      "Reply-To": contact,
      "List-Unsubscribe": `<${leave}>, <mailto:${contact}?subject=unsubscribe>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
      "Auto-Submitted": "auto-generated",
    },
  };
}
