/**
 * @jest-environment node
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { simpleParser } from "mailparser";
import { htmlPages } from "../../after-build/headers-file";
import { form, formType, removeDir, request, serveBuildForSuite, signupBody } from "../support/harness";
import { outboxFiles } from "../support/outbox";
import { confirmLinks, leaveLinks } from "../support/smtp";
import { until } from "../support/until";
import { patience } from "../support/patience";
import { vnuErrors } from "../support/vnu";

/*
 * Valid HTML on every page a visitor can get: the Nu HTML Checker
 * (test/support/vnu.ts) over every page of the build, and over the pages the
 * server writes itself (confirm, leave, refusals, 404) as it answers them. One
 * JVM for all of them: it takes seconds to start.
 */

jest.setTimeout(patience(120_000));

const publicDir = path.resolve(__dirname, "../../public");
const { url, outboxDir } = serveBuildForSuite(publicDir);
/** The pages the server writes itself, as it answers them, saved to files for the checker. */
async function serverPages(): Promise<string[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "vnu-"));
  const save = (name: string, body: string) => {
    const file = path.join(dir, `${name}.html`);
    writeFileSync(file, body);
    return file;
  };
  const html = { Accept: "text/html" };
  const signup = await request(`${url()}/`, {
    method: "POST",
    headers: { ...formType, ...html, Origin: url() },
    body: signupBody("valid.html@example.com"),
  });
  expect(signup.status).toBe(200);
  const files = [save("signup-thanks", signup.body)];
  const links = await mailedLinks();
  const confirmPage = await request(`${url()}${links.confirm}`, { headers: html });
  const leavePage = await request(`${url()}${links.leave}`, { headers: html });
  expect([confirmPage.status, leavePage.status]).toEqual([200, 200]);
  files.push(save("confirm", confirmPage.body), save("leave", leavePage.body));
  const token = (link: string) => new URL(link, url()).searchParams.get("token")!;
  const confirmed = await request(`${url()}/waitlist/confirm`, {
    method: "POST",
    headers: { ...formType, ...html, Origin: url() },
    body: form({ token: token(links.confirm) }),
  });
  const left = await request(`${url()}/waitlist/leave`, {
    method: "POST",
    headers: { ...formType, ...html, Origin: url() },
    body: form({ token: token(links.leave) }),
  });
  expect([confirmed.status, left.status]).toEqual([200, 200]);
  files.push(save("confirmed", confirmed.body), save("left", left.body));
  const invalid = await request(`${url()}/`, {
    method: "POST",
    headers: { ...formType, ...html, Origin: url() },
    body: signupBody("not an address"),
  });
  const forged = await request(`${url()}/waitlist/leave?token=forged`, { headers: html });
  const missing = await request(`${url()}/no-such-page/`, { headers: html });
  expect([invalid.status, forged.status, missing.status]).toEqual([422, 400, 404]);
  files.push(save("refused", invalid.body), save("forged-link", forged.body), save("not-found", missing.body));
  return files;
}

/** The confirm and leave links of the confirmation in the suite's outbox, as paths on this server. */
async function mailedLinks(): Promise<{ confirm: string; leave: string }> {
  const local = (link: string) => `${new URL(link).pathname}${new URL(link).search}`;
  let links: { confirm: string; leave: string } | undefined;
  const arrived = async () => {
    for (const name of outboxFiles(outboxDir)) {
      const mail = await simpleParser(readFileSync(path.join(outboxDir, name)));
      const [confirm, leave] = [confirmLinks(mail).text, leaveLinks(mail).text];
      if (confirm && leave) links = { confirm: local(confirm), leave: local(leave) };
    }
    return links !== undefined;
  };
  await until(arrived, 5_000).catch(() => {
    throw new Error("The signup's confirmation never reached the outbox.");
  });
  return links!;
}

describe("the Nu HTML Checker", () => {
  it("finds no error in any page of the build, nor in the pages the server writes", async () => {
    const built = htmlPages(publicDir).map((page) => page.file);
    expect(built.length).toBeGreaterThanOrEqual(4);
    const written = await serverPages();
    expect(await vnuErrors([...built, ...written])).toEqual([]);
    removeDir(path.dirname(written[0]!));
  });
});
