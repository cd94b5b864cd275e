import { inlineDataId, resetInlineData, takeInlineResponse } from "./inline-data";

const appData = { webpackCompilationHash: "abc" };
const pageData = { componentChunkName: "component---src-pages-index-tsx", path: "/", result: {} };

function carry(data: unknown) {
  document.head.innerHTML = `<script type="application/json" id="${inlineDataId}">${JSON.stringify(data)}</script>`;
}

beforeEach(() => resetInlineData());
afterEach(() => {
  document.head.innerHTML = "";
});

describe("takeInlineResponse", () => {
  it("answers a GET of a file the page carries as Gatsby's loader reads an XMLHttpRequest: 200 and the JSON", () => {
    carry({ "/page-data/app-data.json": appData, "/page-data/index/page-data.json": pageData });
    const response = takeInlineResponse("/page-data/index/page-data.json", "GET");
    expect(response?.status).toBe(200);
    expect(JSON.parse(response!.responseText)).toEqual(pageData);
    expect(JSON.parse(takeInlineResponse("/page-data/app-data.json")!.responseText)).toEqual(appData);
  });

  it("answers each file once, so a later load fetches it and sees a deploy made since", () => {
    carry({ "/page-data/app-data.json": appData });
    expect(takeInlineResponse("/page-data/app-data.json")).toBeDefined();
    expect(takeInlineResponse("/page-data/app-data.json")).toBeUndefined();
  });

  it("leaves to the network a file the page does not carry, and any other method", () => {
    carry({ "/page-data/app-data.json": appData });
    expect(takeInlineResponse("/page-data/privacy-policy/page-data.json")).toBeUndefined();
    // The loader's HEAD request asks whether a page exists: that is the server's to say.
    expect(takeInlineResponse("/page-data/app-data.json", "HEAD")).toBeUndefined();
    expect(takeInlineResponse("/page-data/app-data.json", "GET")).toBeDefined();
  });

  it("leaves every file to the network on a page without data, or with data it cannot read", () => {
    expect(takeInlineResponse("/page-data/app-data.json")).toBeUndefined();
    resetInlineData();
    document.head.innerHTML = `<script type="application/json" id="${inlineDataId}">{"/page-data/app-data.json":</script>`;
    expect(takeInlineResponse("/page-data/app-data.json")).toBeUndefined();
  });
});
