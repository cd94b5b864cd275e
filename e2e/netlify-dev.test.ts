import { maskEmail } from "../waitlist/email-address";
import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import path from "node:path";
import { chromium, type Browser } from "playwright-core";
import { htmlHeaders, securityHeaders } from "../http/headers";
import { findChromium, machine } from "../scripts/find-chromium";
import { startNetlifyDev, type NetlifyDev } from "../test/support/netlify-dev";
import { confirmLinks, leaveLinks, startSmtpServer, type TestSmtpServer } from "../test/support/smtp";
import { until } from "../test/support/until";
import { openPage, signUpOnPage } from "./support";
import { patience } from "../test/support/patience";

/*
 * The Netlify deployment under Netlify's own local runtime (netlify-cli):
 * the build as Netlify builds it, the functions as Netlify bundles and runs
 * them over netlify dev's Blobs sandbox (the store a new Netlify site gets),
 * and a real SMTP server for the confirmations.
 */

jest.setTimeout(patience(120_000));

const publicDir = path.resolve(__dirname, "../public");
let smtp: TestSmtpServer;
let netlify: NetlifyDev;
let browser: Browser;
beforeAll(async () => {
  smtp = await startSmtpServer();
  [netlify, browser] = await Promise.all([
    startNetlifyDev({ SMTP_URL: smtp.url, TIKTOK_SITE_VERIFICATION: "netlify-dev-test" }),
    chromium.launch({ executablePath: findChromium(machine) }),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await netlify?.stop();
  await smtp?.close();
});

/** The response's headers as sent, names lower-cased, each name with every value it was sent with. */
function rawHeaders(pathname: string): Promise<{ status: number; headers: Map<string, string[]> }> {
  return new Promise((resolve, reject) => {
    httpRequest(`${netlify.url}${pathname}`, (res) => {
      res.resume();
      const headers = new Map<string, string[]>();
      for (let at = 0; at < res.rawHeaders.length; at += 2) {
        const name = res.rawHeaders[at]!.toLowerCase();
        headers.set(name, [...(headers.get(name) ?? []), res.rawHeaders[at + 1]!]);
      }
      res.on("end", () => resolve({ status: res.statusCode!, headers }));
    })
      .on("error", reject)
      .end();
  });
}

const mailTo = async (email: string) => {
  const deliveries = await smtp.waitFor(1, 30_000);
  const found = () => deliveries.find((delivery) => delivery.envelope.to.includes(email));
  await until(() => found() !== undefined, 30_000).catch(() => {
    throw new Error(`No message to ${email} reached the SMTP server:\n${netlify.output()}`);
  });
  return found()!.mail;
};

describe("the Netlify deployment under netlify dev", () => {
  it("stores a signup from the form, mails it, confirms it and takes it off the list, in Chromium", async () => {
    const email = `netlify.${Date.now()}@example.com`;
    const errors: string[] = [];
    const page = await openPage(browser, `${netlify.url}/`, {
      viewport: "phone",
      before(page) {
        page.on("console", (message) => {
          if (message.type() === "error") errors.push(`${message.text()}: ${message.location().url}`);
        });
      },
    });
    await signUpOnPage(page, email, true);

    const mail = await mailTo(email);
    const confirmLink = confirmLinks(mail).html;
    expect(confirmLink.startsWith(`${netlify.url}/waitlist/confirm?token=`)).toBe(true);
    await page.goto(confirmLink);
    await page.getByRole("heading", { name: "Confirm your spot on the waitlist?" }).waitFor();
    await page.getByRole("button", { name: "Confirm my spot" }).click();
    // The confirm function found the signup the signup function stored, in the Blobs store, and kept the press.
    await page.getByRole("heading", { name: "Your spot is confirmed." }).waitFor();
    await page.goto(confirmLink);
    await page.getByRole("heading", { name: "You're already confirmed." }).waitFor();

    const leave = leaveLinks(mail);
    await page.goto(leave.html);
    await page.getByRole("heading", { name: `Remove ${maskEmail(email)} from the waitlist?` }).waitFor();
    await page.getByRole("button", { name: "Leave the waitlist" }).click();
    await page.getByRole("heading", { name: "You're off the list." }).waitFor();
    // Nothing failed to load on any page: no script, no style, no icon.
    expect(errors).toEqual([]);

    // Gone from the store: the confirm link now finds no signup.
    await page.goto(confirmLink!.replaceAll("&amp;", "&"));
    await page.getByRole("heading", { name: "This signup is no longer on the list" }).waitFor();
    await page.close();
  });

  it("takes a signup off the list with the one-click POST of its List-Unsubscribe header", async () => {
    const email = `netlify.oneclick.${Date.now()}@example.com`;
    const signup = await fetch(`${netlify.url}/`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: netlify.url },
      body: new URLSearchParams({ "form-name": "waitlist", email }),
    });
    expect(signup.status).toBe(200);
    const mail = await mailTo(email);
    const { header } = leaveLinks(mail);
    expect(header.startsWith(`${netlify.url}/waitlist/leave?token=`)).toBe(true);
    // RFC 8058: what a mail provider sends, from its own servers, with no Origin.
    const oneClick = await fetch(header, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(oneClick.status).toBe(200);
    // Gone from the store: its confirm link finds no signup.
    const confirm = await fetch(confirmLinks(mail).text, { headers: { Accept: "text/html" } });
    expect(confirm.status).toBe(410);
  });

  const pages = ["/", "/privacy-policy/", "/terms-of-service/", "/404.html"];
  it.each([...pages, "/favicon.svg", "/page-data/index/page-data.json"])(
    "serves %s with each header once, and the security headers of the build",
    async (pathname) => {
      const { status, headers } = await rawHeaders(pathname);
      expect(status).toBe(200);
      for (const [name, values] of headers) expect([name, values.length]).toEqual([name, 1]);
      for (const [name, value] of Object.entries(securityHeaders)) {
        expect([name, headers.get(name.toLowerCase())]).toEqual([name, [value]]);
      }
      if (pages.includes(pathname)) {
        const file = pathname.endsWith("/") ? `${pathname}index.html` : pathname;
        const expected = htmlHeaders(readFileSync(path.join(publicDir, file), "utf8"))["Content-Security-Policy"];
        expect(headers.get("content-security-policy")).toEqual([expected]);
      }
    },
  );

  it("answers a path the build does not have with the 404 page, each header once", async () => {
    const { status, headers } = await rawHeaders("/no-such-page/");
    expect(status).toBe(404);
    for (const [name, values] of headers) expect([name, values.length]).toEqual([name, 1]);
    expect(headers.get("x-frame-options")).toEqual(["DENY"]);
  });
});
