import { findFirefox, findWebKit, machine, missingFirefox, missingWebKit } from "../../scripts/find-engines";
import type { Engine, EngineName } from "./engine";
import { launchFirefox } from "./firefox";
import { launchWebKit } from "./webkit";

export interface EngineChoice {
  name: EngineName;
  launch(): Promise<Engine>;
}

/** The engines this machine has, and a line for each it lacks, naming the package to install. */
export function engineChoices(): { available: EngineChoice[]; missing: { name: EngineName; line: string }[] } {
  const available: EngineChoice[] = [];
  const missing: { name: EngineName; line: string }[] = [];
  const firefox = findFirefox(machine);
  if (firefox) available.push({ name: "Firefox", launch: () => launchFirefox(firefox) });
  else missing.push({ name: "Firefox", line: missingFirefox });
  const webkit = findWebKit(machine);
  if (webkit) available.push({ name: "WebKit", launch: () => launchWebKit(webkit) });
  else missing.push({ name: "WebKit", line: missingWebKit });
  return { available, missing };
}
