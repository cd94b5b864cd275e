import { serverConfig } from "../../config/env";
import { projectFolders } from "../../config/folders";
import { openPostgresStore } from "../../waitlist/stores/postgres-store";
import { command } from "../command";
import { UsageError } from "../errors";

/* Moving a Netlify site's list from its Blobs store into Netlify Database, when a founder turns the database on. */

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
    const database = await openPostgresStore(databaseUrl, {
      migrations: projectFolders.migrations,
      warn: (message) => console.error(message),
    });
    try {
      const added = await database.copyIn(rows);
      const { host, pathname } = new URL(databaseUrl);
      return `Copied ${added} of ${rows.length} signups into the Postgres database ${pathname.slice(1)} on ${host}; ${rows.length - added} were there already.`;
    } finally {
      await database.close();
    }
  },
});
