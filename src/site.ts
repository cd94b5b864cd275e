/**
 * The one typed site configuration. Every string, figure and constant the
 * specification fixes lives here, so a rename or a copy change is one edit.
 * Read by gatsby-config.ts (siteMetadata) and by components.
 */

/**
 * Build-time settings. gatsby-node inlines exactly these into the browser
 * bundle (webpack DefinePlugin), so they must be read as literal
 * `process.env.NAME` expressions and the server and browser renders agree.
 */
export const buildEnvNames = ["SITE_URL", "CONTACT_EMAIL", "TIKTOK_SITE_VERIFICATION"] as const;

function setting(value: string | undefined): string | undefined {
  return value && value.trim() !== "" ? value.trim() : undefined;
}

export const placeholderVerificationToken = "set-TIKTOK_SITE_VERIFICATION-at-build-time";

/** Working name of the product: the spec does not give one. */
const name = "Tandem";

export const site = {
  name,
  tagline: "grow. together.",
  title: `${name} | grow. together.`,
  description:
    "The marketplace where TikTok creators find collaborators: AI-powered matching, built-in messaging and group collaborations of up to 50 creators. Join the early-access waitlist.",
  /** Canonical origin, no trailing slash. Set SITE_URL at build time. */
  url: (setting(process.env.SITE_URL) ?? "https://jointandem.app").replace(/\/+$/, ""),
  contactEmail: setting(process.env.CONTACT_EMAIL) ?? "hello@jointandem.app",
  /**
   * Token of the video platform's developer-portal site verification, shown
   * only on the legal pages. The placeholder keeps local builds working;
   * gatsby-node refuses a Netlify production build without the real one.
   */
  siteVerification: {
    metaName: "tiktok-developers-site-verification",
    token: setting(process.env.TIKTOK_SITE_VERIFICATION) ?? placeholderVerificationToken,
  },

  /** static/favicon.svg, inlined by gatsby-node as a data: URI (the file itself outside a build). */
  favicon: process.env.FAVICON_DATA_URI || "/favicon.svg",
  /** Browser UI colour on phones; the hero's background. */
  themeColor: "#120f24",
  /** The 1200×630 card shown when a page is shared (static/og-image.png, made by scripts/make-images.mjs). */
  socialImage: {
    path: "/og-image.png",
    width: 1200,
    height: 630,
    alt: `${name}: grow. together. Where TikTok creators find collaborators.`,
  },

  claims: {
    creatorsInterested: "500+",
    launch: "Q4 2025",
    earlyAccessPrice: "Free",
  },
  groupChatCap: 50,
  minimumAge: 13,
  parentalPermissionUnder: 18,

  waitlist: {
    formName: "waitlist",
    honeypotField: "bot-field",
    emailField: "email",
    /** The Netlify Forms contract: the form posts to the site root. */
    endpoint: "/",
    /** Spec 9: every message disappears after 7 seconds. */
    messageResetMs: 7000,
    submitLabel: "Join Waitlist",
    loadingLabel: "Joining...",
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

  routes: {
    home: "/",
    privacyPolicy: "/privacy-policy/",
    termsOfService: "/terms-of-service/",
  },
} as const;

export type Site = typeof site;
export type SectionId = (typeof site.sections)[keyof typeof site.sections];
