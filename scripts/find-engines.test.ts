import { findFirefox, findWebKit, missingFirefox, missingWebKit, type EngineMachine } from "./find-engines";

/** A machine with these executables, and the folders their paths name. */
function machineWith(executables: string[], firefoxPath?: string): EngineMachine {
  const files = new Set(executables);
  return {
    firefoxPath,
    isExecutable: (file) => files.has(file),
    pathDirs: ["/usr/local/bin", "/usr/bin"],
    list: (dir) => [
      ...new Set(
        executables
          .filter((file) => file.startsWith(`${dir}/`))
          .map((file) => file.slice(dir.length + 1).split("/")[0]!),
      ),
    ],
  };
}

const debianWebKit = [
  "/usr/bin/WebKitWebDriver",
  "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser",
  "/usr/bin/Xvfb",
];

describe("findFirefox", () => {
  it("takes FIREFOX_PATH first", () => {
    expect(findFirefox(machineWith(["/opt/firefox/firefox", "/usr/bin/firefox-esr"], "/opt/firefox/firefox"))).toBe(
      "/opt/firefox/firefox",
    );
  });

  it("stops on a FIREFOX_PATH that is not there, naming it, instead of quietly taking another", () => {
    expect(() => findFirefox(machineWith(["/usr/bin/firefox-esr"], "/opt/none"))).toThrow(
      "FIREFOX_PATH is /opt/none, which is not an executable browser.",
    );
  });

  it("then Debian's firefox-esr on PATH, before a firefox", () => {
    expect(findFirefox(machineWith(["/usr/bin/firefox", "/usr/bin/firefox-esr"]))).toBe("/usr/bin/firefox-esr");
    expect(findFirefox(machineWith(["/usr/local/bin/firefox"]))).toBe("/usr/local/bin/firefox");
  });

  it("finds none on a machine without one, and the line for it names the package, on one line", () => {
    expect(findFirefox(machineWith(["/usr/bin/chromium"]))).toBeUndefined();
    expect(missingFirefox).toContain("apt-get install -y firefox-esr");
    expect(missingFirefox).not.toContain("\n");
  });
});

describe("findWebKit", () => {
  it("finds Debian's WebKitWebDriver, MiniBrowser (under the library's folder) and Xvfb", () => {
    expect(findWebKit(machineWith(debianWebKit))).toEqual({
      driver: "/usr/bin/WebKitWebDriver",
      miniBrowser: "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser",
      xvfb: "/usr/bin/Xvfb",
    });
  });

  it("finds Fedora's MiniBrowser in /usr/libexec, and the older 4.0 API's", () => {
    const fedora = ["/usr/bin/WebKitWebDriver", "/usr/libexec/webkit2gtk-4.1/MiniBrowser", "/usr/bin/Xvfb"];
    expect(findWebKit(machineWith(fedora))?.miniBrowser).toBe("/usr/libexec/webkit2gtk-4.1/MiniBrowser");
    const older = [
      "/usr/bin/WebKitWebDriver",
      "/usr/lib/aarch64-linux-gnu/webkit2gtk-4.0/MiniBrowser",
      "/usr/bin/Xvfb",
    ];
    expect(findWebKit(machineWith(older))?.miniBrowser).toBe("/usr/lib/aarch64-linux-gnu/webkit2gtk-4.0/MiniBrowser");
  });

  it.each(debianWebKit)("finds none when %s is missing, and the line names both packages", (absent) => {
    expect(findWebKit(machineWith(debianWebKit.filter((file) => file !== absent)))).toBeUndefined();
    expect(missingWebKit).toContain("apt-get install -y webkit2gtk-driver xvfb");
    expect(missingWebKit).not.toContain("\n");
  });
});
