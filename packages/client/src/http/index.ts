/** Reaching the API server: requests with rate limits, retries and credentials, and watch streams. */
export { DEFAULT_USER_AGENT, HttpClient, type HttpClientOptions, type HttpMethod, type HttpRequest, type HttpResponse, type WriteFence } from './httpclient.js';
export { DEFAULT_BURST, DEFAULT_QPS, TokenBucket, type TokenBucketOptions } from './ratelimit.js';
export { IDEMPOTENT_METHODS, isIdempotent, parseRetryAfter } from './retry.js';
export { WatchStream, parseWatchLine, type OpenWatch } from './watchstream.js';
export { CredentialSource, type CredentialSourceOptions, type RequestCredentials } from './credentials.js';
