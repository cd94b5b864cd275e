import escapeHtml from "escape-html";
import { site } from "../../config/site";
import { leaveUrl } from "../tokens";
import type { WaitlistSite } from "../site-settings";
import type { MailMessage } from "./confirmation-message";
import { mailLink as link, memberMessage, messageIdFor, paragraph as p } from "./message-frame";

/** One policy's change as the e-mail tells it: the policy, where it is, and what changed that day, newest first. */
export interface AnnouncedChange {
  title: string;
  /** The page's path, such as /privacy-policy/. */
  path: string;
  /** The day it took effect, YYYY-MM-DD: the date of its newest entry under "What changed". */
  date: string;
  summaries: string[];
  /** The fingerprint of the policy's text announced: with the policy and the day, what names this announcement. */
  fingerprint?: string;
}

/** A date as the policy pages write it: "November 26, 2026". */
const written = (date: string) =>
  new Intl.DateTimeFormat("en-US", { dateStyle: "long", timeZone: "UTC" }).format(new Date(`${date}T00:00:00Z`));

/**
 * The e-mail that tells a confirmed signup of a significant change to a policy, on the day it is posted (the
 * Privacy Policy's "Changes" section promises it): what changed, in the words of the policy's own "What changed", a
 * link to each policy, and the person's own leave link (also in List-Unsubscribe), like the confirmation. The same
 * announcement to the same signup has the same Message-ID, so a second run is recognisable as the same message.
 */
export function policyChangeMessage(
  to: string,
  {
    emailKey,
    createdAt,
    linkSecret,
    siteUrl: url,
    contactEmail: contact,
    changes,
    postalAddress,
  }: {
    emailKey: string;
    createdAt: string;
    linkSecret: string;
    changes: readonly AnnouncedChange[];
    /** Who sends it and where, on one line (CONTROLLER_NAME, CONTROLLER_ADDRESS): CAN-SPAM asks it of every such mail. */
    postalAddress: string;
  } & WaitlistSite,
): MailMessage {
  const titles = changes.map((change) => change.title).join(" and ");
  const effective = (change: AnnouncedChange) => `${change.title}, in effect from ${written(change.date)}:`;
  const text = changes
    .map(
      (change) =>
        `${effective(change)}\n${change.summaries.map((summary) => `- ${summary}`).join("\n")}\nRead it: ${url}${change.path}`,
    )
    .join("\n\n");
  const html = changes
    .map(
      (change) => `<h2 style="margin:0 0 8px;font-size:17px;">${escapeHtml(effective(change))}</h2>
<ul style="margin:0 0 8px;padding-left:20px;">
${change.summaries.map((summary) => `<li>${escapeHtml(summary)}</li>`).join("\n")}
</ul>
<p style="${p}">${link(`${url}${change.path}`, `Read the ${change.title}`)}</p>`,
    )
    .join("\n");
  return memberMessage({
    to,
    subject: `${changes.length === 1 ? "A change" : "Changes"} to our ${titles}`,
    heading: `We changed our ${titles}`,
    intro: `You are on the ${site.name} waitlist, and we told you we would e-mail you a change like this one. In short:`,
    // A blank line between the introduction and the changes, as before.
    body: { text: `\n${text}`, html },
    leave: leaveUrl(to, createdAt, linkSecret, url),
    siteUrl: url,
    contact,
    postalAddress,
    messageId: messageIdFor(
      "policy-change",
      `${emailKey} ${changes.map((change) => `${change.path}${change.date}#${change.summaries.length}`).join(" ")}`,
      url,
    ),
  });
}
