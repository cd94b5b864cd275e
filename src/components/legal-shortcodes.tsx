import React from "react";
import { Link } from "gatsby";
import { site } from "../../config/site";
import { useSiteSettings } from "./use-site-settings";

/*
 * Components the legal MDX files may use, so names, addresses and figures
 * come from config/site.ts instead of being typed into a policy.
 */

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
 * The mailing service the confirmed list goes to for the launch e-mail (LAUNCH_MAIL_TOOL), as a processor; while
 * none is chosen, the promise to name it first.
 */
export function LaunchMailTool() {
  const { launchMailTool } = useSiteSettings();
  return (
    <>{launchMailTool || "the mailing service we choose for it, which we will name here before the list goes to it"}</>
  );
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
  SiteName,
  ContactEmail,
  Controller,
  HostingProvider,
  LaunchMailTool,
  SiteUrl,
  GroupCap,
  MinimumAge,
  ParentalPermissionAge,
  LaunchDate,
  UnconfirmedRetention,
  LeaverRetention,
  SuppressionRetention,
  LetInRetention,
  ConfirmLabel,
  ConsentStatement,
  PrivacyPolicyLink,
  TermsLink,
};
