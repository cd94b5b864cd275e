/*
 * The content check's problems as GitHub Actions shows a job's summary (GITHUB_STEP_SUMMARY): Markdown, one section per
 * problem, its lines to paste in a box with a copy button, so that legal staff who edit in the browser read on the
 * pull request's page what the check prints in a terminal.
 */

/** Text shown as it is: no HTML (a component's name in angle brackets would vanish), no Markdown emphasis. */
const plain = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** A paragraph of lines to write into a file (YAML, or config/site.ts's), not of words to read. */
const isLines = (paragraph: string) => /^(?:\s{2,}\S|updates:|fingerprint:)/.test(paragraph);

/** One problem: its file as a heading, what to do, and each set of lines it gives in a fenced block of its own. */
function section(problem: string): string {
  const file = /^([^\s:]+\.(mdx|ts)): /.exec(problem);
  const language = file?.[2] === "ts" ? "ts" : "yaml";
  const paragraphs = (file ? problem.slice(file[0].length) : problem).split("\n\n").map((paragraph, index) => {
    if (isLines(paragraph)) return `\`\`\`${language}\n${paragraph}\n\`\`\``;
    const text = plain(paragraph);
    return index === 0 ? `${text.charAt(0).toUpperCase()}${text.slice(1)}` : text;
  });
  return [...(file ? [`#### \`${file[1]}\``] : []), ...paragraphs].join("\n\n");
}

/** Warnings, after what the run found: each names what to look at, and none stops a pull request. */
function warningSections(warnings: readonly string[]): string[] {
  if (warnings.length === 0) return [];
  return [
    `### ${warnings.length} warning${warnings.length === 1 ? "" : "s"}: nothing to fix before publishing`,
    ...warnings.map(section),
  ];
}

/**
 * The summary of one run of the check: what it checked and found, each problem with what to paste, and the warnings
 * (a claimed date past), which fail nothing.
 */
export function stepSummary(problems: readonly string[], passed: string, warnings: readonly string[] = []): string {
  if (problems.length === 0) {
    return [`### Policies and consent statement`, passed, ...warningSections(warnings)].join("\n\n") + "\n";
  }
  return (
    [
      `### Policies and consent statement: ${problems.length} problem${problems.length === 1 ? "" : "s"} to fix`,
      "Nothing is published until they are fixed. Open the file in GitHub's editor (the pencil on the file): each problem says where, by line number, and gives the lines to write in a box, with a copy button at its corner.",
      ...problems.map(section),
      ...warningSections(warnings),
    ].join("\n\n") + "\n"
  );
}
