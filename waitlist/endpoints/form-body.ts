import { Readable } from "node:stream";
import busboy from "busboy";
import contentType from "content-type";
import getRawBody from "raw-body";
import { header, refuse, type FormRequest, type Outcome } from "./http";

/* Reading a form post within its limits: URL-encoded in UTF-8, or multipart for a mail client's one-click leave. */

const maxBodyBytes = 4096;
export const formType = "application/x-www-form-urlencoded";
const multipartType = "multipart/form-data";

/**
 * Form fields in application/x-www-form-urlencoded text, refusing a
 * percent-escape that does not decode to UTF-8 (%FF) or is not one at all
 * (%zz): URLSearchParams would quietly make it U+FFFD or keep it as typed.
 */
export function parseUrlencoded(text: string): URLSearchParams | undefined {
  for (const part of text.split(/[&=]/)) {
    try {
      decodeURIComponent(part.replace(/\+/g, " "));
    } catch {
      return undefined;
    }
  }
  return new URLSearchParams(text);
}

/** multipart/form-data fields (busboy); a file, or too many parts, is refused. */
function parseMultipart(raw: Buffer, type: string): Promise<URLSearchParams | undefined> {
  return new Promise((resolve) => {
    const fields = new URLSearchParams();
    let refused = false;
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { "content-type": type },
        defParamCharset: "utf8",
        limits: { files: 0, fields: 20, parts: 20, fieldSize: maxBodyBytes },
      });
    } catch {
      resolve(undefined);
      return;
    }
    const refuseAll = () => (refused = true);
    parser.on("field", (name, value, info) => {
      if (info.nameTruncated || info.valueTruncated) refused = true;
      else fields.append(name, value);
    });
    parser.on("file", (_name, stream) => {
      refused = true;
      stream.resume();
    });
    parser.on("filesLimit", refuseAll);
    parser.on("fieldsLimit", refuseAll);
    parser.on("partsLimit", refuseAll);
    parser.on("error", () => resolve(undefined));
    parser.on("close", () => resolve(refused ? undefined : fields));
    Readable.from([raw]).pipe(parser);
  });
}

/**
 * Reads a form post: URL-encoded in UTF-8 (what a browser's form sends), or
 * multipart/form-data when `multipart` is allowed (RFC 8058's one-click
 * POST, which mail providers may send either way). No Content-Encoding, at
 * most maxBodyBytes. The refusal is the visitor's reply.
 */
export async function readForm(
  request: FormRequest,
  { multipart = false }: { multipart?: boolean } = {},
): Promise<{ fields: URLSearchParams } | { refusal: Outcome }> {
  const sendAs = multipart ? `${formType} or ${multipartType}` : formType;
  let type: contentType.ParsedMediaType;
  try {
    type = contentType.parse(header(request.headers, "content-type") ?? "");
  } catch {
    return { refusal: refuse(415, `Send the form as ${sendAs}.`) };
  }
  const isMultipart = multipart && type.type === multipartType;
  if (type.type !== formType && !isMultipart) return { refusal: refuse(415, `Send the form as ${sendAs}.`) };
  const charset = type.parameters.charset?.toLowerCase();
  if (charset && charset !== "utf-8") return { refusal: refuse(415, "Send the form in UTF-8.") };
  const encoding = header(request.headers, "content-encoding")?.trim().toLowerCase();
  if (encoding && encoding !== "identity") {
    return { refusal: refuse(415, "Send the form uncompressed: no Content-Encoding is decoded here.") };
  }

  let raw: Buffer;
  try {
    raw = await getRawBody(request.body, { limit: maxBodyBytes, length: header(request.headers, "content-length") });
  } catch (error) {
    if ((error as { type?: string }).type === "entity.too.large") {
      return { refusal: refuse(413, `The form is larger than ${maxBodyBytes} bytes.`) };
    }
    return { refusal: refuse(400, "The form could not be read.") };
  }

  let fields: URLSearchParams | undefined;
  if (isMultipart) {
    fields = await parseMultipart(raw, header(request.headers, "content-type")!);
    if (!fields) return { refusal: refuse(400, "The form could not be read.") };
  } else {
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(raw);
    } catch {
      return { refusal: refuse(400, "The form is not valid UTF-8.") };
    }
    fields = parseUrlencoded(text);
  }
  if (!fields) return { refusal: refuse(400, "The form is not valid UTF-8.") };
  return { fields };
}
