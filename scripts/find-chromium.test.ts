import { findChromium, noBrowserLine, NoBrowserError, type Machine } from "./find-chromium";

/** A machine with these executables; `install` says whether installing Playwright's Chromium works. */
function machineWith(
  executables: string[],
  { chromePath, install = false }: { chromePath?: string; install?: boolean } = {},
) {
  const files = new Set(executables);
  const installs: string[] = [];
  const machine: Machine = {
    chromePath,
    isExecutable: (file) => files.has(file),
    pathDirs: ["/usr/local/bin", "/usr/bin"],
    playwrightChromium: () => "/home/me/.cache/ms-playwright/chromium-1/chrome",
    installPlaywrightChromium() {
      installs.push("chromium");
      if (install) files.add("/home/me/.cache/ms-playwright/chromium-1/chrome");
      return install;
    },
  };
  return { machine, installs };
}

describe("findChromium", () => {
  it("takes CHROME_PATH first, over every other browser", () => {
    const { machine } = machineWith(["/opt/chrome", "/usr/bin/chromium"], { chromePath: "/opt/chrome" });
    expect(findChromium(machine)).toBe("/opt/chrome");
  });

  it("stops on a CHROME_PATH that is not there, naming it, instead of quietly taking another", () => {
    const { machine } = machineWith(["/usr/bin/chromium"], { chromePath: "/opt/none" });
    expect(() => findChromium(machine)).toThrow(
      new NoBrowserError("CHROME_PATH is /opt/none, which is not an executable browser."),
    );
  });

  it("then the system's Chromium or Chrome on PATH, Chromium first", () => {
    expect(findChromium(machineWith(["/usr/bin/google-chrome", "/usr/bin/chromium"]).machine)).toBe(
      "/usr/bin/chromium",
    );
    expect(findChromium(machineWith(["/usr/bin/google-chrome"]).machine)).toBe("/usr/bin/google-chrome");
  });

  it("then Playwright's cache, without installing anything", () => {
    const { machine, installs } = machineWith(["/home/me/.cache/ms-playwright/chromium-1/chrome"]);
    expect(findChromium(machine)).toBe("/home/me/.cache/ms-playwright/chromium-1/chrome");
    expect(installs).toEqual([]);
  });

  it("then installs Playwright's Chromium where the network allows", () => {
    const { machine, installs } = machineWith([], { install: true });
    expect(findChromium(machine)).toBe("/home/me/.cache/ms-playwright/chromium-1/chrome");
    expect(installs).toEqual(["chromium"]);
  });

  it("and only then stops, with one line naming the package to install", () => {
    const { machine, installs } = machineWith([], { install: false });
    expect(() => findChromium(machine)).toThrow(new NoBrowserError(noBrowserLine));
    expect(noBrowserLine).toContain("apt-get install -y chromium");
    expect(noBrowserLine).not.toContain("\n");
    expect(installs).toEqual(["chromium"]);
  });
});
