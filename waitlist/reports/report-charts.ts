import type { TopLevelSpec } from "vega-lite";
import { site } from "../../config/site";
import type { ReportFigures } from "./report";
import type { Share } from "./stats";

/*
 * The report's charts: Vega-Lite specs, drawn to static SVG here in Node (Vega's headless View), so the page shows
 * them with no script, offline, with JavaScript off and in print. Vega and Vega-Lite are ES modules only, and Vega
 * awaits at its top level, which require() cannot load: they are import()ed when a chart is drawn, so the other
 * commands never load them (about 0.2 s), and Jest (which compiles import() to require()) tests them through a
 * child process running the command.
 */

const { colors } = site;
/**
 * A chart's plot: it fits the desktop page's column at its own size, and its labels are still about 11 px on a
 * phone's 343 px: an SVG scales down there, never up.
 */
const width = 400;

const config = {
  font: "system-ui, sans-serif",
  background: colors.paper,
  // The page names each chart (role="img" and its label) and gives its figures in a table: the marks need no names.
  aria: false,
  mark: { aria: false },
  axis: {
    labelColor: colors.ink,
    titleColor: colors.ink,
    labelFontSize: 14,
    titleFontSize: 14,
    domainColor: colors.fieldBorder,
    tickColor: colors.fieldBorder,
    gridColor: colors.line,
  },
  legend: { labelColor: colors.ink, labelFontSize: 14, titleFontSize: 14, orient: "top" },
  title: { color: colors.ink, fontSize: 15, anchor: "start" },
  view: { stroke: null },
} as const;

/** A count axis: whole numbers only, as many ticks as fit. */
const countAxis = { format: "d", tickMinStep: 1 } as const;

/** Draws a Vega-Lite spec to an SVG string, at its own size (its viewBox lets the page scale it down). */
async function svgOf(spec: TopLevelSpec): Promise<string> {
  const [{ parse, View }, { compile }] = await Promise.all([import("vega"), import("vega-lite")]);
  const view = new View(parse(compile({ ...spec, config } as TopLevelSpec).spec), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

/** Signups and confirmations per local day: two bar charts over the same days. */
function perDaySpec(days: ReportFigures["days"]): TopLevelSpec {
  // A band per local calendar day (YYYY-MM-DD), labelled as UTC so that no machine's zone shifts it; labels that
  // would overlap are left out, every other one at a time.
  const x = {
    field: "date",
    type: "ordinal" as const,
    title: null,
    axis: {
      labelExpr: "utcFormat(toDate(datum.value), '%b %-d')",
      labelAngle: 0,
      labelOverlap: true,
      labelFlush: true,
      ticks: false,
    },
  };
  const panel = (field: "signups" | "confirmations", title: string, color: string) => ({
    title,
    width,
    height: 120,
    mark: { type: "bar" as const, color },
    encoding: { x, y: { field, type: "quantitative" as const, title: null, axis: countAxis } },
  });
  return {
    data: { values: days },
    vconcat: [panel("signups", "Signups", colors.brand), panel("confirmations", "Confirmations", colors.accent)],
  };
}

/** Horizontal bars in the given order, with each count at the end of its bar. */
function barsSpec(values: { label: string; count: number }[], color: string): TopLevelSpec {
  const y = { field: "label", type: "nominal" as const, sort: null, title: null, axis: { labelLimit: 140 } };
  return {
    width: width - 150,
    data: { values },
    encoding: { y, x: { field: "count", type: "quantitative", title: null, axis: countAxis } },
    layer: [
      { mark: { type: "bar", color } },
      {
        mark: { type: "text", align: "left", dx: 4, color: colors.ink, fontSize: 14 },
        encoding: { text: { field: "count" } },
      },
    ],
  };
}

/** A share table's rows as bars: how many signed up, and over it how many of them confirmed. */
function sharesSpec(shares: Share[]): TopLevelSpec {
  const values = shares.flatMap((share) => [
    { name: share.name, kind: "Signed up", count: share.signups },
    { name: share.name, kind: "Confirmed", count: share.confirmed },
  ]);
  return {
    width: width - 150,
    data: { values },
    mark: { type: "bar" },
    encoding: {
      y: { field: "name", type: "nominal", sort: null, title: null, axis: { labelLimit: 140 } },
      x: { field: "count", type: "quantitative", title: null, stack: null, axis: countAxis },
      color: {
        field: "kind",
        type: "nominal",
        title: null,
        scale: { domain: ["Signed up", "Confirmed"], range: [colors.fieldBorder, colors.brand] },
      },
      // Confirmed are a part of those who signed up: drawn over their bar, not beside it.
      order: { field: "kind", sort: "descending" },
    },
  };
}

/** Each of the report's charts as SVG, by the figures it shows; undefined where there is nothing to draw. */
export interface ReportCharts {
  perDay: string;
  funnel: string;
  sources: string | undefined;
  campaigns: string | undefined;
  referralTags: string | undefined;
  topInviters: string | undefined;
}

/** The funnel's stages, by labels short enough for a chart's axis (Vega, without a canvas, guesses wide). */
export const funnelStages = (funnel: ReportFigures["funnel"]) => [
  { label: "Signed up", count: funnel.signedUp },
  { label: "Confirmed", count: funnel.confirmed },
  { label: "Unconfirmed", count: funnel.unconfirmed },
  { label: "Left", count: funnel.left },
  { label: "Pruned", count: funnel.pruned },
  // Deleted after their wave (the Privacy Policy's days after it): a stage once anyone is, none before the launch.
  ...(funnel.afterWave > 0 ? [{ label: "After a wave", count: funnel.afterWave }] : []),
];

export async function reportCharts(figures: ReportFigures): Promise<ReportCharts> {
  const shares = (rows: Share[]) => (rows.length === 0 ? undefined : svgOf(sharesSpec(rows)));
  const inviters = figures.invites.topInviters.map(({ code, confirmedInvites }) => ({
    label: code,
    count: confirmedInvites,
  }));
  const [perDay, funnel, sources, campaigns, referralTags, topInviters] = await Promise.all([
    svgOf(perDaySpec(figures.days)),
    svgOf(barsSpec(funnelStages(figures.funnel), colors.brand)),
    shares(figures.sources),
    shares(figures.campaigns),
    shares(figures.referralTags),
    inviters.length === 0 ? undefined : svgOf(barsSpec(inviters, colors.accent)),
  ]);
  return { perDay, funnel, sources, campaigns, referralTags, topInviters };
}
