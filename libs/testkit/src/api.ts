export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface ApiClient {
  request<T = any>(
    method: string,
    path: string,
    options?: { body?: unknown; token?: string | null; headers?: Record<string, string> },
  ): Promise<ApiResponse<T>>;
  get<T = any>(path: string, token?: string | null): Promise<ApiResponse<T>>;
  post<T = any>(path: string, body?: unknown, token?: string | null): Promise<ApiResponse<T>>;
  patch<T = any>(path: string, body?: unknown, token?: string | null): Promise<ApiResponse<T>>;
  put<T = any>(path: string, body?: unknown, token?: string | null): Promise<ApiResponse<T>>;
  delete<T = any>(path: string, token?: string | null): Promise<ApiResponse<T>>;
}

/**
 * A small HTTP client for tests: JSON in and out, bearer token by default. Its answers are
 * checked as every fetch of a test is (./contract).
 */
export function apiClient(baseUrl: string, defaultToken?: string): ApiClient {
  const request: ApiClient['request'] = async (method, path, options = {}) => {
    const token = options.token === undefined ? defaultToken : options.token;
    const headers: Record<string, string> = { ...options.headers };
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    }
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body, signal: AbortSignal.timeout(30_000) });
    const text = await response.text();
    let parsed: unknown = text;
    const contentType = response.headers.get('content-type') ?? '';
    if (text && contentType.includes('json')) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed as never };
  };
  return {
    request,
    get: (path, token) => request('GET', path, { token }),
    post: (path, body, token) => request('POST', path, { body, token }),
    patch: (path, body, token) => request('PATCH', path, { body, token }),
    put: (path, body, token) => request('PUT', path, { body, token }),
    delete: (path, token) => request('DELETE', path, { token }),
  };
}
