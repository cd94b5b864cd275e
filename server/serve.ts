import { existsSync } from "node:fs";
import path from "node:path";
import { createApp } from "./app";
import { ConfigError, readEnv, serverConfig } from "../config/env";
import { createHttpServer } from "./http-server";
import { StoreError } from "../waitlist/stores/store";
import { pruneHourly } from "../waitlist/prune";
import { openSqliteWaitlist, waitlistSettings } from "./server-waitlist";
import { site } from "../config/site";

/** Where the signups go, never with the database's password. */
function storedIn({ databaseUrl, dbFile }: { databaseUrl: string | undefined; dbFile: string }): string {
  if (!databaseUrl) return path.relative(process.cwd(), dbFile);
  const url = new URL(databaseUrl);
  return `the Postgres database ${url.pathname.slice(1)} on ${url.host}`;
}

/** npm run serve / npm start: the built site and the waitlist on one port. */
async function main(): Promise<void> {
  const env = readEnv();
  const config = serverConfig(env);
  if (!existsSync(path.join(config.publicDir, "index.html"))) {
    console.error(
      `No build in ${path.relative(process.cwd(), config.publicDir) || "."}/. Run \`npm run build\` first, or \`npm start\` to build and serve.`,
    );
    process.exit(1);
  }
  const { store, mailer, confirmations, signup, leave, confirm } = await openSqliteWaitlist({
    ...waitlistSettings(env, "start"),
    warn: (message) => console.error(message),
  });
  const app = createApp({
    publicDir: config.publicDir,
    endpoints: { signup, leave, confirm },
    trustProxy: config.trustProxy,
  });
  let stopPruning = () => {};
  // Behind proxies of yours every connection comes from them: the per-address cap is theirs to keep.
  const server = createHttpServer(app, { countByAddress: config.trustProxy === 0 });
  server.listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : config.port;
    const shown = config.host === "127.0.0.1" ? "localhost" : config.host;
    console.log(`${site.name} is running at http://${shown}:${port}/`);
    console.log(`Waitlist signups are stored in ${storedIn(config)}`);
    console.log(`Confirmation e-mails go to ${mailer.destination}`);
    // Whatever is owed (from a previous run, a crash, a mail server that was down), now and on a schedule.
    void confirmations.start().then(({ sent }) => {
      if (sent > 0) console.log(`Sent ${sent} confirmation(s) still owed from before.`);
    });
    // The Privacy Policy's promise: addresses never confirmed go after the days it names.
    stopPruning = pruneHourly(store, { forget: mailer.forget });
  });
  server.on("error", (error: NodeJS.ErrnoException) => {
    console.error(
      error.code === "EADDRINUSE"
        ? `Port ${config.port} is in use. Stop the other server or choose another port: PORT=9001 npm run serve`
        : `Could not start the server: ${error.message}`,
    );
    process.exit(1);
  });
  const stop = () => {
    stopPruning();
    server.close(() => {
      // Sends under way finish; the rest stays pending for the next start.
      void confirmations.close().finally(() => {
        mailer.close();
        void store.close().then(() => process.exit(0));
      });
    });
    server.closeAllConnections();
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof StoreError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
});
