import { createHash } from "node:crypto";
import escapeHtml from "escape-html";
import { site } from "../../config/site";
import { htmlDocument } from "../html-document";

/*
 * What every e-mail the waitlist sends shares, written once: the HTML frame (the brand above a white card, a small
 * print below; no images, no tracking, readable in a narrow mail client), the link style, the headers that give mail
 * clients their own unsubscribe button (RFC 8058), and a Message-ID that names one message however often it is sent.
 */

const { colors } = site;
/** A paragraph's style in the card. */
export const paragraph = "margin:0 0 16px;";

/** A link in the brand's colour. */
export const mailLink = (href: string, label: string) =>
  `<a href="${escapeHtml(href)}" style="color:${colors.brand};">${escapeHtml(label)}</a>`;

/** A button: the one thing a mail asks of its reader (confirm; open the product). */
export const mailButton = (href: string, label: string) =>
  `<p style="margin:0 0 16px;"><a href="${escapeHtml(href)}" style="display:inline-block;padding:12px 24px;border-radius:999px;background:${colors.brand};color:${colors.brandInk};font-weight:700;text-decoration:none;">${escapeHtml(label)}</a></p>`;

/** The HTML document: `card` is the card's inner HTML, `smallPrint` the line under it (both escaped already). */
export function mailHtml(subject: string, card: string, smallPrint: string): string {
  return htmlDocument({
    title: subject,
    head: ['<meta name="color-scheme" content="light">'],
    body: `<body style="margin:0;padding:0;background:${colors.paperTint};">
<div style="max-width:480px;margin:0 auto;padding:24px 16px;font-family:system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;font-size:16px;line-height:1.6;color:${colors.ink};">
<p style="${paragraph}font-size:20px;font-weight:800;color:${colors.brand};">${escapeHtml(site.name)} <span style="font-weight:600;color:${colors.inkSoft};">· ${escapeHtml(site.tagline)}</span></p>
<div style="padding:24px;border-radius:16px;background:${colors.paper};">
${card}
</div>
<p style="margin:16px 0 0;font-size:13px;color:${colors.inkSoft};">${smallPrint}</p>
</div>
</body>`,
  });
}

/**
 * Every mail's own headers. Replies go to the contact address; the leave link and a mail to it are the mail client's
 * unsubscribe button. And no tracking by the provider where a header can say so: Postmark adds an open pixel or
 * rewrites links when its server or stream is set to, unless the message says otherwise (X-PM-TrackOpens,
 * X-PM-TrackLinks); other providers read no such header and ignore it (SES and Resend track only as their account is
 * set: docs/founders.md, "Tracking off at the provider").
 */
export function leaveHeaders(leave: string, contact: string): Record<string, string> {
  return {
    "Reply-To": contact,
    "List-Unsubscribe": `<${leave}>, <mailto:${contact}?subject=unsubscribe>`,
    "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    "Auto-Submitted": "auto-generated",
    "X-PM-TrackOpens": "false",
    "X-PM-TrackLinks": "None",
  };
}

/**
 * A Message-ID that names one message (`kind`, and `seed`: what identifies it, such as a signup and its asking).
 * Mail systems recognise a message sent twice by it, and the outbox keeps one file per message.
 */
export function messageIdFor(kind: string, seed: string, siteUrl: string): string {
  const digest = createHash("sha256").update(seed, "utf8").digest("hex").slice(0, 32);
  return `<${kind}.${digest}@${new URL(siteUrl).hostname}>`;
}

/**
 * An e-mail from the founders to a confirmed member of the list (a policy's change, a wave's "You're in"): a heading
 * and an introduction, the message's own part in text and HTML, then what every such e-mail closes with: where to
 * write, the person's own leave link (also in List-Unsubscribe), why they get it and the sender's postal address.
 */
export function memberMessage({
  to,
  subject,
  heading,
  intro,
  body,
  leave,
  siteUrl: url,
  contact,
  postalAddress,
  messageId,
}: {
  to: string;
  subject: string;
  heading: string;
  intro: string;
  /** What follows the introduction, as text and as the card's HTML (escaped already). */
  body: { text: string; html: string };
  leave: string;
  siteUrl: string;
  contact: string;
  /** Who sends it and where, on one line (CONTROLLER_NAME, CONTROLLER_ADDRESS): CAN-SPAM asks it of every such mail. */
  postalAddress: string;
  messageId: string;
}) {
  const host = url.replace(/^https?:\/\//, "");
  const questions = "Questions? Reply to this e-mail or write to";
  const because = `You get this e-mail because you confirmed your spot on the ${site.name} waitlist at`;
  const text = `Hi there,

${heading}. ${intro}
${body.text}

${questions} ${contact}.

Changed your mind? Leave the waitlist:
${leave}

${site.name} - ${site.tagline}
${url}/

${because} ${host}.
${postalAddress}
`;
  const card = `<h1 style="margin:0 0 12px;font-size:24px;line-height:1.25;">${escapeHtml(heading)}</h1>
<p style="${paragraph}">${escapeHtml(intro)}</p>
${body.html}
<p style="${paragraph}">${escapeHtml(questions)} <a href="mailto:${escapeHtml(contact)}" style="color:${colors.brand};">${escapeHtml(contact)}</a>.</p>
<p style="margin:0;">Changed your mind? ${mailLink(leave, "Leave the waitlist")}</p>`;
  return {
    to,
    subject,
    text,
    html: mailHtml(
      subject,
      card,
      `${escapeHtml(because)} ${mailLink(`${url}/`, host)}.<br>${escapeHtml(postalAddress)}`,
    ),
    messageId,
    headers: leaveHeaders(leave, contact),
  };
}
