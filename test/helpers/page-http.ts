import { request } from 'node:http';

export type PageResponse = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

/**
 * One raw HTTP request to the approval page, every header as given (fetch would not let a test
 * set `Host`, nor send a POST without `Origin` as a script outside a browser does).
 */
export function pageRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<PageResponse> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host: target.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: options.method ?? 'GET',
        headers: {
          Host: target.host,
          ...(options.body === undefined ? {} : { 'Content-Type': 'application/x-www-form-urlencoded' }),
          ...options.headers,
        },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
      },
    );
    sent.on('error', reject);
    sent.end(options.body);
  });
}

/** The session cookie a link's response set (`name=value`), for the next requests. */
export function sessionCookie(response: PageResponse): string {
  const cookie = [response.headers['set-cookie'] ?? []].flat()[0];
  if (cookie === undefined) throw new Error(`no session cookie (status ${response.status}): ${response.body}`);
  return cookie.split(';')[0] ?? '';
}

/** The CSRF token a page load issued (every form of the page carries it). */
export function csrfOf(page: PageResponse): string {
  const match = /name="csrf" value="([^"]+)"/.exec(page.body);
  if (!match?.[1]) throw new Error(`no form on the page (status ${page.status})`);
  return match[1];
}
