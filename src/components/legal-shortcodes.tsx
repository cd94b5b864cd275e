import React, { createContext, useContext, type ReactNode } from "react";
import { Link } from "gatsby";
import { site } from "../../config/site";
import { unnamedMailProvider } from "../../config/mail-providers";
import { useSiteSettings } from "./use-site-settings";

/*
 * Components the legal MDX files may use, so names, addresses and figures
 * come from config/site.ts instead of being typed into a policy.
 */

/** The frontmatter of the policy a page shows, as gatsby-plugin-mdx puts it in the page's context. */
interface PolicyFrontmatter {
  launchMailTool?: unknown;
  mailProvider?: unknown;
}
const Frontmatter = createContext<PolicyFrontmatter>({});

/**
 * MDX's wrapper of every policy: MDX hands it the page's props, among them the frontmatter gatsby-plugin-mdx puts in
 * the page's context (pageContext.frontmatter), and it hands that to the shortcodes that show one of its fields.
 */
export function PolicyFields({
  pageContext,
  children,
}: {
  pageContext?: { frontmatter?: PolicyFrontmatter };
  children?: ReactNode;
}) {
  return <Frontmatter.Provider value={pageContext?.frontmatter ?? {}}>{children}</Frontmatter.Provider>;
}

export function SiteName() {
  return <>{site.name}</>;
}

export function ContactEmail() {
  const { contactEmail } = useSiteSettings();
  return <a href={`mailto:${contactEmail}`}>{contactEmail}</a>;
}

/** The controller of the personal information (CONTROLLER_NAME, CONTROLLER_ADDRESS): who the policy binds, and where. */
export function Controller() {
  const { controllerName, controllerAddress } = useSiteSettings();
  return (
    <>
      {controllerName}, {controllerAddress}
    </>
  );
}

/** Who hosts the site and keeps the waitlist (HOSTING_PROVIDER; Netlify on a build there): the one really used. */
export function HostingProvider() {
  const { hostingProvider } = useSiteSettings();
  return <>{hostingProvider}</>;
}

/**
 * The mailing service the confirmed list goes to for the launch e-mail, as a processor: the one the policy's own
 * frontmatter names (`launchMailTool`), which its fingerprint covers, so that naming it is a dated change of the
 * policy; in an element the founders' commands find it by on the page the site serves (cli/commands/launch-list.ts).
 * While none is named, the promise to name it first.
 */
export function LaunchMailTool() {
  const { launchMailTool } = useContext(Frontmatter);
  const tool = typeof launchMailTool === "string" ? launchMailTool.trim() : "";
  if (tool === "") return <>the mailing service we choose for it, which we will name here before the list goes to it</>;
  return <span data-launch-mail-tool="">{tool}</span>;
}

/**
 * The mail provider that delivers the site's own e-mails, as a processor: the one the policy's own frontmatter names
 * (`mailProvider`), which its fingerprint covers, so that naming it, or another, is a dated change of the policy. While
 * none is named, a placeholder, which the build of a public site refuses (gatsby-node.ts, onPreBuild).
 */
export function MailProvider() {
  const { mailProvider } = useContext(Frontmatter);
  const provider = typeof mailProvider === "string" ? mailProvider.trim() : "";
  return <>{provider === "" ? unnamedMailProvider : provider}</>;
}

export function SiteUrl() {
  const { siteUrl } = useSiteSettings();
  return <a href={`${siteUrl}/`}>{siteUrl.replace(/^https?:\/\//, "")}</a>;
}

export function GroupCap() {
  return <>{site.groupChatCap}</>;
}

export function MinimumAge() {
  return <>{site.minimumAge}</>;
}

export function ParentalPermissionAge() {
  return <>{site.parentalPermissionUnder}</>;
}

export function LaunchDate() {
  return <>{site.claims.launch}</>;
}

/** How long an address nobody confirmed is kept: "30 days". */
export function UnconfirmedRetention() {
  return <>{site.waitlist.unconfirmedRetentionDays} days</>;
}

/** How long the fingerprint of someone who left is kept, for the launch mailing service (waitlist/leavers.ts). */
export function LeaverRetention() {
  return <>{site.waitlist.leaverDigestRetentionDays} days</>;
}

/** How long the fingerprint of an inbox is kept after a bounce for good or a spam complaint (waitlist/suppressions.ts). */
export function SuppressionRetention() {
  return <>{site.waitlist.suppressionRetentionDays} days</>;
}

/** How long the entry of a person let in is kept after their wave (waitlist/prune.ts, the daily pass). */
export function LetInRetention() {
  return <>{site.waitlist.letInRetentionDays} days</>;
}

/** How long the entry of a member whose mail bounced for good is kept after the bounce (waitlist/prune.ts). */
export function UndeliverableRetention() {
  return <>{site.waitlist.undeliverableRetentionDays} days</>;
}

/** What a person agrees to receive, as the form, the e-mail and the confirm page say it. */
export function ConsentStatement() {
  return <>{site.waitlist.consent.statement}</>;
}

/** The confirmation e-mail's button, as it reads there. */
export function ConfirmLabel() {
  return <>{site.waitlist.confirmLabel}</>;
}

export function PrivacyPolicyLink() {
  return <Link to={site.routes.privacyPolicy}>{site.legalPages.privacyPolicy.title}</Link>;
}

export function TermsLink() {
  return <Link to={site.routes.termsOfService}>{site.legalPages.termsOfService.title}</Link>;
}

export const legalShortcodes = {
  // Not a shortcode: MDX wraps each policy in it (src/templates/legal-page.tsx passes this object to MDXProvider).
  wrapper: PolicyFields,
  SiteName,
  ContactEmail,
  Controller,
  HostingProvider,
  LaunchMailTool,
  MailProvider,
  SiteUrl,
  GroupCap,
  MinimumAge,
  ParentalPermissionAge,
  LaunchDate,
  UnconfirmedRetention,
  LeaverRetention,
  SuppressionRetention,
  LetInRetention,
  UndeliverableRetention,
  ConfirmLabel,
  ConsentStatement,
  PrivacyPolicyLink,
  TermsLink,
};
