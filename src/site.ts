/**
 * The one typed site configuration. Every string, figure and constant the
 * specification fixes lives here, so a rename or a copy change is one edit.
 * Read by gatsby-config.ts (siteMetadata) and by components.
 */

/** Working name of the product: the spec does not give one. */
const name = "Tandem";

export const site = {
  name,
  tagline: "grow. together.",
  title: `${name} | grow. together.`,
  description:
    "The marketplace where TikTok creators find collaborators: AI-powered matching, built-in messaging and group collaborations of up to 50 creators. Join the early-access waitlist.",
  /**
   * The meta tag of the video platform's developer-portal site verification,
   * shown only on the legal pages. Its token is TIKTOK_SITE_VERIFICATION
   * (server/config.ts), like the site's URL and contact address.
   */
  siteVerificationMetaName: "tiktok-developers-site-verification",
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

export type SectionId = (typeof site.sections)[keyof typeof site.sections];
