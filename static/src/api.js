// JSON over fetch with the CSRF cookie and the project's edit token; errors come back in the API's one shape.

function cookie(name) {
  for (const part of document.cookie.split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return "";
}

export class ApiError extends Error {
  constructor(status, error) {
    super(error?.message || `HTTP ${status}`);
    this.status = status;
    this.error = error || { code: `http_${status}`, message: `HTTP ${status}` };
  }
}

/** Call the API. Resolves with the parsed body; rejects with ApiError carrying {code, message, line, column}.
 *  `headers`: more request headers (the workshop tokens: X-Teacher-Token, X-Participant-Token).
 *  A FormData body goes as multipart (uploads); `raw` resolves with the Response itself (downloads). */
export async function api(method, url, body, { token, headers: extra, raw = false } = {}) {
  const headers = { Accept: "application/json", ...extra };
  const form = typeof FormData !== "undefined" && body instanceof FormData;
  if (body !== undefined && !form) headers["Content-Type"] = "application/json";
  if (method !== "GET") headers["X-CSRFToken"] = cookie("csrftoken");
  if (token) headers["X-Edit-Token"] = token;
  let response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : form ? body : JSON.stringify(body),
      credentials: "same-origin",
    });
  } catch (failure) {
    throw new ApiError(0, { code: "network", message: `Network error: ${failure.message}` });
  }
  if (raw && response.ok) return response;
  let data = null;
  const text = await response.text();
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!response.ok) throw new ApiError(response.status, data?.error);
  return data;
}

/** Describe an API error for a status line: "code (line 3, column 5): message". */
export function describeError(error) {
  if (!error) return "";
  const where = error.line != null ? ` (line ${error.line}, column ${error.column ?? "?"})` : "";
  return `${error.code || "error"}${where}: ${error.message || ""}`;
}
