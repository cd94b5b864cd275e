// Reads MDX files the way gatsby-plugin-mdx does (gray-matter, then the MDX
// compiler) and prints, as JSON, what the content check needs to judge them:
// frontmatter, its text (the MDX after the frontmatter), `##` headings, the components used, or why a file failed
// (yamlError: where and why its frontmatter could not be read).
// ESM on purpose: the MDX compiler is ESM-only. Usage: node scripts/mdx-facts.mjs FILE...
import { readFile } from "node:fs/promises";
import { compile } from "@mdx-js/mdx";
import matter from "gray-matter";
import { toString } from "mdast-util-to-string";
import { visit } from "unist-util-visit";

async function facts(file) {
  const result = { file, frontmatter: null, body: "", headings: [], components: [], error: null, yamlError: null };
  const source = await readFile(file, "utf8");
  let parsed;
  try {
    parsed = matter(source);
  } catch (error) {
    // js-yaml's mark counts from the rest of the opening "---" line: its line + 1 is the file's line.
    const line = typeof error.mark?.line === "number" ? error.mark.line + 1 : null;
    result.yamlError = {
      line,
      reason: error.reason ?? error.message,
      text: line === null ? null : (source.replace(/\r\n?/g, "\n").split("\n")[line - 1] ?? null),
    };
    return result;
  }
  result.frontmatter = parsed.data;
  result.body = parsed.content;
  const frontmatterLines = source.slice(0, source.length - parsed.content.length).split("\n").length - 1;
  const components = new Set();
  const collect = () => (tree) => {
    visit(tree, (node) => {
      if (node.type === "heading" && node.depth === 2) result.headings.push(toString(node).trim());
      if ((node.type === "mdxJsxFlowElement" || node.type === "mdxJsxTextElement") && node.name) {
        components.add(node.name);
      }
    });
  };
  try {
    await compile({ value: parsed.content, path: file }, { remarkPlugins: [collect] });
  } catch (error) {
    const line = error.line ? `line ${error.line + frontmatterLines}: ` : "";
    result.error = `${line}${error.reason ?? error.message}`;
  }
  result.components = [...components].sort();
  return result;
}

const results = [];
for (const file of process.argv.slice(2)) results.push(await facts(file));
process.stdout.write(JSON.stringify(results));
