declare module "regenerate-unicode-properties" {
  /** Each Unicode property ECMAScript's `\p{…}` takes, with its values (Script_Extensions: every script's name). */
  const properties: Map<string, string[]>;
  export default properties;
}
