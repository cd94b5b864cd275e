import { existsSync } from "node:fs";
import path from "node:path";
import { ConfigError, readEnv } from "../config/env";
import { site } from "../config/site";
import { StoreError } from "../waitlist/stores/store";
import { settingsFromEnv, startServer } from "./start-server";

/** npm run serve / npm start: the built site and the waitlist on one port, from the environment. */
async function main(): Promise<void> {
  const settings = settingsFromEnv(readEnv(), "start");
  const { publicDir, port, waitlist } = settings;
  if (!existsSync(path.join(publicDir, "index.html"))) {
    console.error(
      `No build in ${path.relative(process.cwd(), publicDir) || "."}/. Run \`npm run build\` first, or \`npm start\` to build and serve.`,
    );
    process.exit(1);
  }
  const running = await startServer(settings).catch((error: NodeJS.ErrnoException) => {
    if (error instanceof ConfigError || error instanceof StoreError) throw error;
    console.error(
      error.code === "EADDRINUSE"
        ? `Port ${port} is in use. Stop the other server or choose another port: PORT=9001 npm run serve`
        : `Could not start the server: ${error.message}`,
    );
    process.exit(1);
  });
  console.log(`${site.name} is running at ${running.url.replace("//127.0.0.1:", "//localhost:")}/`);
  // Where the signups go, never with the database's password.
  const { databaseUrl, dbFile } = waitlist;
  const stored = databaseUrl
    ? `the Postgres database ${new URL(databaseUrl).pathname.slice(1)} on ${new URL(databaseUrl).host}`
    : path.relative(process.cwd(), dbFile);
  console.log(`Waitlist signups are stored in ${stored}`);
  console.log(`Confirmation e-mails go to ${running.waitlist.mailer.destination}`);
  if (!waitlist.siteUrl) {
    console.log(
      `Links in e-mails lead to ${running.siteUrl}: SITE_URL is not set. Set it to the site's public address.`,
    );
  }
  void running.firstSweep?.then(({ sent }) => {
    if (sent > 0) console.log(`Sent ${sent} confirmation(s) still owed from before.`);
  });
  const stop = () => void running.close().finally(() => process.exit(0));
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
