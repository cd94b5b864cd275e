import { site } from "./site";

/**
 * What every legal MDX file must hold, as data: the frontmatter's fields, and for the two policies of the spec, every
 * required section as an `##` heading in the spec's order, and what the Privacy Policy must name. The checks that
 * hold the files to these rules are scripts/legal-content/'s (rules.ts, record.ts), for the content check and the
 * build; how every side reads a policy (its dates, its text's fingerprint, its version, its source) is
 * waitlist/policies.ts.
 */

export interface LegalFrontmatter {
  title: string;
  slug: string;
  description: string;
  /** YYYY-MM-DD: when the policy first took effect. Never changes. */
  effectiveDate: string;
  /** Every change since, newest first: when it took effect (YYYY-MM-DD) and what changed, in a sentence or two. */
  updates?: { date: string; summary: string }[];
  /**
   * The Privacy Policy's only: the launch mail tool it names, by its legal name and country, which <LaunchMailTool />
   * shows; empty or absent while none is chosen. The fingerprint covers it, so naming one is a dated change.
   */
  launchMailTool?: string | null;
  /**
   * The Privacy Policy's only: the mail provider that delivers the site's own e-mails, by its legal name and country,
   * which <MailProvider /> shows. The fingerprint covers it, so naming it, or another, is a dated change; the build of
   * a public site refuses one that names none, or not the provider MAIL_PROVIDER says (config/mail-providers.ts).
   */
  mailProvider?: string | null;
  /** policyFingerprint() of the text as it stands: the content check prints it when the text changes. */
  fingerprint: string;
}

/** What `launchMailTool` and `mailProvider` must look like: a name and country on one line, up to 200 characters, no < > { }. */
export const launchMailToolPattern = /^[^<>{}\p{Cc}]{1,200}$/u;

export interface RequiredSection {
  /** How the spec names it; used in messages. */
  name: string;
  /** What the `##` heading must contain. */
  heading: RegExp;
}

/** The longest a description, or a dated entry's summary, may be. */
export const maxDescription = 300;

export const requiredSections: Readonly<Record<string, readonly RequiredSection[]>> = {
  [site.legalPages.privacyPolicy.slug]: [
    { name: "information we collect", heading: /information we collect|information collected/i },
    { name: "how we use it", heading: /\buse\b/i },
    { name: "sharing", heading: /shar(e|ing)/i },
    { name: "cookies and tracking", heading: /cookies/i },
    { name: "your choices", heading: /choices/i },
    { name: "data security", heading: /security/i },
    { name: "children under 13", heading: /children/i },
    { name: "changes to this policy", heading: /changes/i },
    { name: "contact", heading: /contact/i },
    { name: "monetization and payments", heading: /monetization|payments/i },
  ],
  [site.legalPages.termsOfService.slug]: [
    { name: "eligibility", heading: /eligibility/i },
    { name: "your account", heading: /account/i },
    { name: "user conduct", heading: /conduct/i },
    { name: "AI-based matching", heading: /matching/i },
    { name: "collaborations", heading: /collaborations?/i },
    { name: "paid services", heading: /paid services|fees/i },
    { name: "intellectual property", heading: /intellectual property/i },
    { name: "termination", heading: /termination/i },
    { name: "third-party services", heading: /third[- ]party/i },
    { name: "limitation of liability", heading: /liability/i },
    { name: "changes to these terms", heading: /changes/i },
    { name: "contact", heading: /contact/i },
  ],
};

/**
 * Something a policy must say, and say plainly: in a paragraph or list item of its text that matches every pattern
 * of `says` (one place, so that a right and its article are said together), or as an `##` heading of its own.
 */
export interface RequiredStatement {
  /** What the policy must name, as messages say it. */
  name: string;
  /** Every pattern one paragraph or list item must match; or, with `heading`, the `##` heading's. */
  says: readonly RegExp[];
  /** The statement is a section of its own: an `##` heading matching `says`. */
  heading?: true;
  /** Words that make it conditional ("depending on where you live"): a paragraph that has them does not count. */
  unconditional?: RegExp;
  /** What to write, in legal staff's words. */
  fix: string;
}

/** A legal basis, as the GDPR numbers them: Art. 6(1)(a) to (f). */
const legalBasis = /Art\. 6\(1\)\([a-f]\)/;

/**
 * What the GDPR's Art. 13 and 21 ask the Privacy Policy to say, which a heading cannot show: each right it must name,
 * the right to object set out on its own (Art. 21(4)), and a legal basis for each use of a signup that is not the
 * e-mails it agreed to (the page and campaign tag, the invite code and the ranking of inviters); and, for the launch
 * (issue 51), how people are let in and what the launch mailing service receives (cli/commands/launch-list.ts);
 * (issue 60) what a bounce and a complaint do, and the fingerprint kept after them (waitlist/suppressions.ts); and
 * (issue 61) that the launch e-mail is not tracked: a mailing tool's open and click tracking (a pixel per recipient,
 * every link rewritten through its servers) reads and stores information on the reader's device, which needs consent
 * (ePrivacy Directive Art. 5(3), PECR reg. 6), so docs/founders.md has the founders turn it off, and the policy says so;
 * how long an entry outlives its wave (waitlist/prune.ts); and what a restriction does (signup-life.ts, restrict).
 */
export const requiredStatements: Readonly<Record<string, readonly RequiredStatement[]>> = {
  [site.legalPages.privacyPolicy.slug]: [
    {
      name: "the right to restriction of processing (Art. 18 GDPR)",
      says: [/\brestrict/i, /Art\. 18\b/],
      fix: 'add it to the rights, with its article, such as "Restriction: ... we keep it and use it for nothing else until the question is settled (Art. 18)."',
    },
    {
      name: "the right to data portability (Art. 20 GDPR)",
      says: [/\bportab/i, /Art\. 20\b/],
      fix: 'add it to the rights, with its article, such as "Portability: the information you gave us in a common machine-readable file (Art. 20)."',
    },
    {
      name: "the right to lodge a complaint with a supervisory authority (Art. 77 GDPR)",
      says: [/\bcomplain/i, /(supervisory|data protection) authority/i],
      unconditional:
        /\bdepending on\b|\bmay have\b|\bwhere (the|local) law\b|\bif (the|your) (local )?law\b|\bin some (countries|places)\b/i,
      fix: 'say it without a condition, such as "You have the right to lodge a complaint with a data protection supervisory authority (Art. 77)."',
    },
    {
      name: "the right to object, in a section of its own (Art. 21(4) GDPR: clearly and separately from any other information)",
      says: [/\bright to object\b/i],
      heading: true,
      fix: 'add an "## " heading for it, such as "## Your Right to Object", and set out there what a person may object to and how.',
    },
    {
      name: "a legal basis for keeping the invite code a signup came by and ranking inviters",
      says: [/\binvit/i, legalBasis],
      fix: 'name it where the legal bases are listed, such as "our legitimate interest in ... the invite code of the link you came by ... (Art. 6(1)(f))".',
    },
    {
      name: "a legal basis for keeping a signup's page and campaign tag",
      says: [/\bcampaign/i, legalBasis],
      fix: 'name it where the legal bases are listed, such as "our legitimate interest in learning which of our posts ... the page and any campaign tag ... (Art. 6(1)(f))".',
    },
    {
      name: "how people are let in at launch (a wave at a time, by signup order or by invites, ties by who signed up first) and the legal basis for ranking inviters",
      says: [
        /\bwave\b/i,
        /\bsignup order\b/i,
        /\bmost confirmed creators\b/i,
        /\bsigned up first\b/i,
        /\brank/i,
        legalBasis,
      ],
      fix: 'say it in one paragraph, such as "We let those who confirmed in a wave at a time, by signup order or by invites: those who brought the most confirmed creators first, and among those who brought as many, whoever signed up first. Ranking inviters rests on our legitimate interest ... (Art. 6(1)(f))."',
    },
    {
      name: "what the launch mailing service receives (each address, that person's own link to leave and their wave, nothing else) and what it keeps",
      says: [
        /<LaunchMailTool \/>/,
        /\baddress\b/i,
        /\blink to leave\b/i,
        /\bwave\b/i,
        /\bnothing else\b/i,
        /\bkeeps\b/i,
      ],
      fix: "say it where <LaunchMailTool /> is named, in one list item, such as \"we give it three things and nothing else: the address, that person's own link to leave, and the wave they were let in with. It keeps them for that wave's e-mail only ...\"",
    },
    {
      name: "that the launch mailing service sends the launch e-mail with its open and click tracking turned off, where it is named",
      says: [/<LaunchMailTool \/>/, /\bopen and click tracking\b/i, /\bturned off\b/i],
      fix: 'say it in the list item that names <LaunchMailTool />, such as "It sends that e-mail with its open and click tracking turned off, so it records neither whether you open it nor which of its links you click."',
    },
    {
      name: "that the launch e-mail is not tracked (no tracking images, no links rewritten, its opening and clicks not recorded)",
      says: [
        /\blaunch e-mail\b/i,
        /\bno tracking images?\b/i,
        /\bnot rewritten\b/i,
        /\bneither\b.*\brecords?\b.*\bopen\b.*\bclick/i,
      ],
      fix: 'say it in one paragraph under "Cookies and Tracking", such as "The launch e-mail is not tracked either, whether we send it ourselves or our launch mailing service sends it for us: it contains no tracking images, its links are not rewritten to pass through the mailing service\'s servers, and neither we nor that service record whether or when you open it, or which of its links you click."',
    },
    {
      name: "what a bounce for good and a spam complaint do (no more e-mail, the entry deleted at once), the fingerprint of the inbox kept for <SuppressionRetention />, and the legal basis",
      says: [
        /\bbounced for good\b/i,
        /\bspam\b/i,
        /\bdelete\b.*\bat once\b/i,
        /\bfingerprint\b/i,
        /<SuppressionRetention \/>/,
        legalBasis,
      ],
      fix: 'say it in one paragraph, such as "When an e-mail to you bounced for good, we e-mail that address no more; if you mark one as spam, we delete your entry at once, as a leave. Either way we keep, for <SuppressionRetention />, a fingerprint of the inbox ... This rests on our legitimate interest in keeping our e-mail deliverable and in not e-mailing anyone who does not want it (Art. 6(1)(f))."',
    },
    {
      name: "the mail provider (<MailProvider />), the suppression list of its own it keeps under its own terms, and how a person gets off it (ask us, and we ask the provider)",
      says: [/<MailProvider \/>/, /\bsuppression list\b/i, /\bits own terms\b/i, /<ContactEmail \/>/, /\bremove\b/i],
      fix: 'say it where the e-mail provider is named, in one list item, such as "the e-mail provider that delivers our e-mails to your inbox, <MailProvider />, which also keeps, under its own terms, a suppression list of its own ... To be taken off that list, write to <ContactEmail />: we ask <MailProvider /> to remove your address."',
    },
    {
      name: "how long the entry of a member whose e-mail bounced for good is kept after the bounce (<UndeliverableRetention />)",
      says: [/<UndeliverableRetention \/>/, /\bbounce/i, /\bdelete/i],
      fix: 'say it where a bounce for good is, such as "if you had [confirmed], you stay on the waitlist, but we send you nothing, and we delete your entry <UndeliverableRetention /> after the bounce."',
    },
    {
      name: "what becomes of the founders' exports and of backups (Art. 13(2)(a) GDPR: how long each copy is kept)",
      says: [/\bexport/i, /\bbackups?\b/i, /\bdelete/i],
      fix: 'say it where retention is, in one paragraph, such as "Copies and backups. When our founders ... export the waitlist ... they delete it once that is answered, within a month at most ... each backup is deleted within 30 days."',
    },
    {
      name: "how long an entry is kept after the wave that let its person in (<LetInRetention />)",
      says: [/<LetInRetention \/>/, /\bwave\b/i, /\buntil\b/i],
      fix: 'say it where the waitlist entry\'s retention is, such as "We keep your waitlist entry ... until you leave the waitlist, until <LetInRetention /> after the wave that let you in, or ...".',
    },
    {
      name: "what a restriction does (no e-mail, no wave, no time limit deletes it, leaving still does)",
      says: [/\brestrict/i, /Art\. 18\b/, /\bno\s+e-mail\b/i, /\bwave\b/i, /\btime limits?\b/i, /\bleaving\b/i],
      fix: 'say it in the right to restriction, such as "Restriction: ... we keep it and use it for nothing else until the question is settled (Art. 18): we send you no e-mail, let you in with no wave, ... and none of our time limits deletes it meanwhile. Leaving the waitlist still deletes it at once."',
    },
  ],
};
