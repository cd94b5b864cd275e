import { site } from "../../config/site";
import { leaveUrl } from "../tokens";
import type { WaitlistSite } from "../site-settings";
import type { MailMessage } from "./confirmation-message";
import { mailButton, memberMessage, messageIdFor } from "./message-frame";

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
  const intro = `You joined the ${site.name} waitlist, and early access is open for you now (wave ${wave}). Start here:`;
  return memberMessage({
    to,
    subject: `You're in: early access to ${site.name} is open for you`,
    heading: "You're in",
    intro,
    body: { text: launchUrl, html: mailButton(launchUrl, `Open ${site.name}`) },
    leave: leaveUrl(to, createdAt, linkSecret, url),
    siteUrl: url,
    contact,
    postalAddress,
    messageId: messageIdFor("let-in", `${emailKey} ${createdAt} wave ${wave}`, url),
  });
}
