import { serverConfig } from "../../config/env";
import { openPostgresStore } from "../../waitlist/stores/postgres-store";
import { command } from "../command";
import { UsageError } from "../errors";
import { formsSignups } from "../netlify-forms";

/* Moving a Netlify site's list: from Netlify Forms into its Blobs store, and from there into Netlify Database. */

export const importForms = command({
  name: "import-forms",
  usage: [
    "import-forms",
    "copy the signups Netlify Forms holds (this site before it kept its",
    "waitlist in Netlify Blobs) into the Netlify store; needs --netlify",
  ],
  check: ({ netlify }) => {
    if (!netlify) throw new UsageError("import-forms copies into the Netlify store: run it with --netlify.");
  },
  /*
   * Every address of the old Netlify Forms waitlist that the store does not
   * have yet, with its first submission's time and attribution. They were
   * confirmed by that version's mail (or never, without SMTP_URL): they are
   * stored as sent, so nobody is mailed twice. Run it again at will.
   */
  run: async ({ env, opened }) => {
    const { api, siteId, store } = opened.netlify!;
    const signups = await formsSignups(api, siteId, env.SITE_URL);
    if (!signups) return `The site has no "waitlist" form in Netlify Forms: nothing to import.`;
    let added = 0;
    for (const signup of signups) {
      const at = new Date(signup.createdAt);
      const earlier = { ...signup, source: "netlify" as const, at, confirmationSentAt: at, earlier: true };
      if ((await store.add(earlier)).added) added++;
    }
    await store.fold();
    return `Imported ${added} of ${signups.length} addresses from Netlify Forms; ${signups.length - added} were in the store already.`;
  },
});

export const copyToDatabase = command({
  name: "copy-to-database",
  usage: [
    "copy-to-database",
    "copy the signups the site's Netlify Blobs store holds (before it had",
    "Netlify Database) into the database DATABASE_URL names; needs --netlify",
  ],
  check: ({ netlify }, env) => {
    const { databaseUrl } = serverConfig(env());
    if (!(netlify && databaseUrl)) {
      throw new UsageError(
        "copy-to-database copies the Netlify Blobs store into Netlify Database: run it with --netlify, and DATABASE_URL set to the database's connection string (the site's Database page, Connect).",
      );
    }
    return databaseUrl;
  },
  /*
   * Every signup of the site's Blobs store that Netlify Database does not
   * have yet, as it is: times, attribution, mail state and consent. An
   * address the database has already (a signup since the move) keeps its
   * row. Run it again at will.
   */
  run: async ({ input: databaseUrl, opened }) => {
    const { store } = opened.netlify!;
    // The ledger is what all() reads: bring it up to date first.
    await store.fold();
    const rows = await store.all();
    const database = await openPostgresStore(databaseUrl, { warn: (message) => console.error(message) });
    try {
      const added = await database.copyIn(rows);
      const { host, pathname } = new URL(databaseUrl);
      return `Copied ${added} of ${rows.length} signups into the Postgres database ${pathname.slice(1)} on ${host}; ${rows.length - added} were there already.`;
    } finally {
      await database.close();
    }
  },
});
