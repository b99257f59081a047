import { Agent, fetch as fetchFrom } from 'undici';

/**
 * A browser-like client of the dashboard over fetch: keeps cookies, does not follow redirects (tests assert them),
 * and posts forms with the token the last page carried.
 */
export interface DashboardPage {
  status: number;
  headers: Headers;
  body: string;
  location: string | null;
}

export class DashboardClient {
  readonly cookies = new Map<string, string>();
  /** The `csrf` field of the last page that had a form. */
  formToken: string | undefined;
  readonly baseUrl: string;
  readonly extraHeaders: Record<string, string>;

  /** Connects from this loopback address (`127.0.0.2`) instead of the default, to be another client to per-address limits. */
  readonly #from: Agent | undefined;

  constructor(baseUrl: string, extraHeaders: Record<string, string> = {}, options: { localAddress?: string } = {}) {
    this.baseUrl = baseUrl;
    this.extraHeaders = extraHeaders;
    this.#from = options.localAddress ? new Agent({ localAddress: options.localAddress }) : undefined;
  }

  get(path: string): Promise<DashboardPage> {
    return this.send('GET', path);
  }

  /** Posts a form; the page's token is added unless `fields.csrf` says otherwise (`null` leaves it out). */
  post(path: string, fields: Record<string, string | string[] | null>, headers: Record<string, string> = {}): Promise<DashboardPage> {
    const form = new URLSearchParams();
    const withToken = { csrf: this.formToken ?? null, ...fields };
    for (const [name, value] of Object.entries(withToken)) {
      if (value === null) continue;
      for (const item of Array.isArray(value) ? value : [value]) form.append(name, item);
    }
    return this.send('POST', path, form.toString(), { 'content-type': 'application/x-www-form-urlencoded', ...headers });
  }

  async send(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<DashboardPage> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const init = { method, body, redirect: 'manual', headers: { ...this.extraHeaders, ...(cookie ? { cookie } : {}), ...headers } } as const;
    // undici's own fetch takes its Agent (the global fetch's bundled undici refuses it); its Response is the same shape.
    const response = this.#from ? ((await fetchFrom(`${this.baseUrl}${path}`, { ...init, dispatcher: this.#from })) as unknown as Response) : await fetch(`${this.baseUrl}${path}`, init);
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, ...value] = pair.split('=');
      if (/max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value.join('='));
    }
    const text = await response.text();
    const token = /name="csrf" value="([^"]+)"/.exec(text)?.[1];
    if (token) this.formToken = token;
    return { status: response.status, headers: response.headers, body: text, location: response.headers.get('location') };
  }

  /** Signs up through the pages; the client holds the session afterwards. */
  async signUp(email: string, password = 'a-long-enough-password', name = ''): Promise<DashboardPage> {
    await this.get('/dashboard/sign-up');
    return this.post('/dashboard/sign-up', { email, password, name });
  }

  async signIn(email: string, password: string): Promise<DashboardPage> {
    await this.get('/dashboard/sign-in');
    return this.post('/dashboard/sign-in', { email, password });
  }
}
