/** The webpack loader of inline-data-wiring.cjs: Gatsby's loader source in, wired to take the page's data first. */
declare function inlineDataWiring(source: string): string;
export = inlineDataWiring;
