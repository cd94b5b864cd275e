import path from "node:path";

/*
 * The project's own folders, from this file's place in the checkout, never from the working directory: npm start,
 * gatsby develop and the founders' commands pass them in. (A Netlify function is a bundle of its own and names the
 * files it carries itself: netlify/netlify-waitlist.ts.)
 */
const root = path.resolve(__dirname, "..");

export const projectFolders = {
  root,
  /** The policies in MDX; the waitlist keeps the Privacy Policy's version with each consent. */
  legal: path.join(root, "content", "legal"),
  /** The Postgres schema, plain SQL: a DATABASE_URL is migrated from here on start (postgres-migrations.ts). */
  migrations: path.join(root, "waitlist", "stores", "postgres-migrations"),
} as const;
