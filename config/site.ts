/**
 * The one typed site configuration: every string, figure and constant the
 * specification fixes, and the brand, so a rename or a change is one edit.
 * Copy the spec leaves to us (the hero's pitch, the feature cards' bodies)
 * stays in its component, where it is written once. What depends on the
 * environment (the URL, the contact address) is config/env.ts's.
 */

/** Working name of the product: the spec does not give one. */
const name = "Tandem";

/**
 * The two legal pages: each policy's `slug` in content/legal must be the one
 * here and its `title` the name links use (the content check and the build
 * say so); the build fails on any link to a route no page has.
 */
/** The spec's names for the buttons and links that appear in more than one place. */
const labels = {
  features: "Features",
  joinWaitlist: "Join Waitlist",
  joinTheWaitlist: "Join the Waitlist",
  backToHome: "Back to Home",
} as const;

const legalPages = {
  privacyPolicy: { slug: "privacy-policy", title: "Privacy Policy" },
  termsOfService: { slug: "terms-of-service", title: "Terms of Service" },
} as const;

/** Spec 9: the minimum age, and the age under which a parent's permission is needed (the Terms' eligibility). */
const minimumAge = 13;
const parentalPermissionUnder = 18;

export const site = {
  name,
  tagline: "grow. together.",
  title: `${name} | grow. together.`,
  description:
    "The marketplace where TikTok creators find collaborators: AI-powered matching, built-in messaging and group collaborations of up to 50 creators. Join the early-access waitlist.",
  /**
   * The meta tag of the video platform's developer-portal site verification,
   * shown only on the legal pages. Its token is TIKTOK_SITE_VERIFICATION
   * (config/env.ts), like the site's URL and contact address.
   */
  siteVerificationMetaName: "tiktok-developers-site-verification",
  /**
   * The brand's colours, the one place they are typed. The pages read them as
   * CSS custom properties (camelCase to kebab-case: --hero-bg), which
   * gatsby-ssr.tsx writes into every page; the server's pages, the
   * confirmation e-mail, the logo and scripts/make-images.ts use them directly.
   */
  colors: {
    ink: "#0f0d1a",
    inkSoft: "#4a4760",
    paper: "#ffffff",
    paperTint: "#f6f4fb",
    line: "#e4e0ef",
    brand: "#c0134a",
    brandStrong: "#9d0f3c",
    brandInk: "#ffffff",
    /** The brand's pale tint, behind the waitlist section. */
    brandTint: "#fff5f8",
    accent: "#0e7c86",
    /** Browser UI colour on phones (theme-color); the hero's background. */
    heroBg: "#120f24",
    heroInk: "#f5f3ff",
    heroSoft: "#c9c4e6",
    /** The logo's second ring and highlights on the dark hero. */
    glow: "#7ee7f0",
    /** The tagline's gradient starts here, on the dark hero. */
    pink: "#ff6b9a",
    pinkSoft: "#ff9bb9",
    gold: "#ffd27a",
    fieldBorder: "#8f8aa8",
    placeholder: "#6b6785",
    success: "#0d6b3a",
    successBg: "#e8f6ee",
    error: "#b3261e",
    errorBg: "#fdecea",
    focus: "#1b5fd6",
  },
  /** The 1200×630 card shown when a page is shared (static/og-image.png, made by scripts/make-images.ts). */
  socialImage: {
    path: "/og-image.png",
    width: 1200,
    height: 630,
    alt: `${name}: grow. together. Where TikTok creators find collaborators.`,
  },

  labels,

  claims: {
    creatorsInterested: "500+",
    launch: "Q4 2025",
    earlyAccessPrice: "Free",
  },
  groupChatCap: 50,
  minimumAge,
  parentalPermissionUnder,

  waitlist: {
    formName: "waitlist",
    honeypotField: "bot-field",
    emailField: "email",
    /** The form's contract (Netlify Forms' before it): the form posts to the site root. */
    endpoint: "/",
    /** Spec 9: every message disappears after 7 seconds. */
    messageResetMs: 7000,
    submitLabel: labels.joinWaitlist,
    loadingLabel: "Joining...",
    /** Above the success message where it is a page of its own: the no-JavaScript reply, the confirmation e-mail. */
    successHeading: "You're on the list!",
    /** The button in the confirmation e-mail and on its page: the double opt-in. */
    confirmLabel: "Confirm my spot",
    /**
     * What a person agrees to receive, in the one wording the form, the confirmation e-mail, its confirm page and
     * the Privacy Policy all show. Each signup's record of consent keeps the version (waitlist/policies.ts): a new
     * wording gets a new version, the date it is published, and the fingerprint of its wording, which
     * `npm run check:content` prints when the wording changes (scripts/legal-content/consent-rules.ts). It names every policy
     * whose changes we e-mail, and who may give this consent: the Terms' ages, whose parent's permission under 18
     * also covers the GDPR's consent of a parent under 16 (Art. 8), with no field of its own on the form.
     */
    consent: {
      version: "2026-11-26",
      fingerprint: "74cd4ff28288",
      statement: `We'll e-mail you when early access opens and, until then, now and then with launch news or a change to our ${legalPages.privacyPolicy.title} or ${legalPages.termsOfService.title}: nothing else, and every e-mail has a link to leave. Join only if you are ${minimumAge} or older, and if you are under ${parentalPermissionUnder}, only with a parent's or guardian's permission.`,
    },
    /** Addresses never confirmed are deleted this many days after their signup (the Privacy Policy says so). */
    unconfirmedRetentionDays: 30,
    /**
     * The keyed digest of someone who left is kept this many days, to take them off the launch mailing tool too
     * (waitlist/leavers.ts); the Privacy Policy says so.
     */
    leaverDigestRetentionDays: 90,
    /**
     * The launch mail tool keeps a wave this many days after that wave's e-mail at most, then we delete it there: the
     * Privacy Policy says so; let-in, export --launch and stats remind the founders (waitlist/waves.ts).
     */
    launchToolRetentionDays: 30,
    /**
     * After a bounce for good or a complaint, a keyed fingerprint of the address is kept this many days, so that the
     * mail never reaches it again, even signed up anew (waitlist/mail-events/); the Privacy Policy says so.
     */
    suppressionRetentionDays: 180,
    /**
     * A person let in at launch has their entry deleted this many days after their wave (the daily pass: prune.ts):
     * time to answer a question about the wave's e-mail, its bounces and unsubscribes; the Privacy Policy says so.
     */
    letInRetentionDays: 90,
    /**
     * A member whose mail bounced for good (undeliverable: kept, never mailed) has their entry deleted this many days
     * after the bounce, as long as the fingerprint that holds the mail back (the daily pass: prune.ts); the Privacy
     * Policy says so.
     */
    undeliverableRetentionDays: 180,
    messages: {
      invalidEmail: "Please enter a valid email address",
      serverError: "Something went wrong. Please try again.",
      networkError: "Unable to connect. Please check your connection and try again.",
      success: "Welcome to the waitlist! Check your email for a confirmation message.",
    },
  },

  scroll: {
    /** Spec 9: scrolling to a section leaves an 80 px offset. */
    offsetPx: 80,
    /** Spec 9: delay before scrolling after navigating to the landing page. */
    afterNavigationDelayMs: 200,
  },

  sections: {
    features: "features",
    waitlist: "waitlist",
  },

  legalPages,
  routes: {
    home: "/",
    privacyPolicy: `/${legalPages.privacyPolicy.slug}/`,
    termsOfService: `/${legalPages.termsOfService.slug}/`,
  },
} as const;

export type SectionId = (typeof site.sections)[keyof typeof site.sections];
