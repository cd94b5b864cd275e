import escapeHtml from "escape-html";
import { site } from "../../config/site";
import { leaveUrl } from "../tokens";
import type { WaitlistSite } from "../site";
import type { MailMessage } from "./confirmation-message";
import { leaveHeaders, mailButton, mailHtml, mailLink as link, messageIdFor, paragraph as p } from "./message-frame";

/**
 * The "You're in" e-mail of a wave (npm run waitlist -- let-in): early access is open to this confirmed signup, the
 * way in is the founders' LAUNCH_URL, and the person's own leave link stays (also in List-Unsubscribe), with the
 * sender's postal address. One person's wave has one Message-ID, however often a run tries it.
 */
export function letInMessage(
  to: string,
  {
    emailKey,
    createdAt,
    wave,
    linkSecret,
    siteUrl: url,
    contactEmail: contact,
    launchUrl,
    postalAddress,
  }: {
    emailKey: string;
    createdAt: string;
    wave: number;
    linkSecret: string;
    /** Where the launched product lets them in (LAUNCH_URL). */
    launchUrl: string;
    /** Who sends it and where, on one line (CONTROLLER_NAME, CONTROLLER_ADDRESS). */
    postalAddress: string;
  } & WaitlistSite,
): MailMessage {
  const leave = leaveUrl(to, createdAt, linkSecret, url);
  const host = url.replace(/^https?:\/\//, "");
  const subject = `You're in: early access to ${site.name} is open for you`;
  const said = {
    heading: "You're in",
    intro: `You joined the ${site.name} waitlist, and early access is open for you now (wave ${wave}). Start here:`,
    button: `Open ${site.name}`,
    questions: "Questions? Reply to this e-mail or write to",
    changedMind: "Changed your mind?",
    because: `You get this e-mail because you confirmed your spot on the ${site.name} waitlist at`,
  };
  const text = `Hi there,

${said.heading}. ${said.intro}
${launchUrl}

${said.questions} ${contact}.

${said.changedMind} Leave the waitlist:
${leave}

${site.name} - ${site.tagline}
${url}/

${said.because} ${host}.
${postalAddress}
`;
  const card = `<h1 style="margin:0 0 12px;font-size:24px;line-height:1.25;">${escapeHtml(said.heading)}</h1>
<p style="${p}">${escapeHtml(said.intro)}</p>
${mailButton(launchUrl, said.button)}
<p style="${p}">${escapeHtml(said.questions)} <a href="mailto:${escapeHtml(contact)}" style="color:${site.colors.brand};">${escapeHtml(contact)}</a>.</p>
<p style="margin:0;">${escapeHtml(said.changedMind)} ${link(leave, "Leave the waitlist")}</p>`;
  return {
    to,
    subject,
    text,
    html: mailHtml(
      subject,
      card,
      `${escapeHtml(said.because)} ${link(`${url}/`, host)}.<br>${escapeHtml(postalAddress)}`,
    ),
    messageId: messageIdFor("let-in", `${emailKey} ${createdAt} wave ${wave}`, url),
    headers: leaveHeaders(leave, contact),
  };
}
