import { siteSettings, type Env } from "../config/env";
import { placeholderController } from "../config/variables";
import { UsageError } from "./errors";

/*
 * Who sends the founders' own e-mails (announce-policy-change, let-in), on one line in each: CAN-SPAM asks the
 * sender's postal address of every such mail, and the site's build has it as CONTROLLER_NAME and CONTROLLER_ADDRESS.
 */

/** The controller's name and postal address on one line; undefined while either is the placeholder. */
export function postalAddressOf(env: Env): string | undefined {
  const { controllerName, controllerAddress } = siteSettings(env);
  if (controllerName === placeholderController.name || controllerAddress === placeholderController.address) {
    return undefined;
  }
  return `${controllerName}, ${controllerAddress}`;
}

/** The postal address a mail to real people carries; refused, with what to set, while it is a placeholder. */
export function requirePostalAddress(env: Env): string {
  const address = postalAddressOf(env);
  if (address === undefined) {
    throw new UsageError(
      "Nothing sent: set CONTROLLER_NAME and CONTROLLER_ADDRESS as the site's build has them: the e-mail carries the postal address of who sends it (CAN-SPAM asks it of every such mail).",
    );
  }
  return address;
}

/** The postal address as a sample (a dry run, the outbox) shows it: the placeholders when they are not set. */
export const postalAddressShown = (env: Env) =>
  postalAddressOf(env) ?? `${siteSettings(env).controllerName}, ${siteSettings(env).controllerAddress}`;

export const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;
