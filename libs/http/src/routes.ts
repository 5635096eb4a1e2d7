import express, { Router, type Request, type Response } from 'express';
import { trace } from '@opentelemetry/api';
import type { z } from 'zod';
import { continueTrace, requestContext, type Principal } from '@quire/runtime';
import { httpError } from './errors';
import { assertNoNul, parseInput } from './validate';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Who may call a route at all. `caller`: a principal the gateway vouched for (user or
 * installation token); `public`: anyone (share links, signed downloads). What a caller may do
 * with a given resource is a rule on data (their role in the space, author-only edits…) and
 * stays in the domain.
 */
export type RouteAccess = 'caller' | 'public';

export type SuccessStatus = 200 | 201 | 202 | 204 | 302;

/** A non-JSON or non-200 answer: a status, an optional JSON body, a Location and headers. */
export class Reply {
  constructor(
    readonly status: number,
    readonly body?: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** 201 Created with the new resource's address. */
export const created = (location: string, body: unknown): Reply => new Reply(201, body, { Location: location });
/** 204 No Content. */
export const noContent = (): Reply => new Reply(204);

type Schema = z.ZodType;
type Parsed<S> = S extends Schema ? z.output<S> : undefined;

export interface RouteInput<P, Q, B, C> {
  params: P;
  query: Q;
  body: B;
  /** The principal; `undefined` only on `public` routes without one. */
  caller: C;
  req: Request;
  res: Response;
}

export interface RouteSpec<P extends Schema | undefined, Q extends Schema | undefined, B extends Schema | undefined, A extends RouteAccess> {
  method: HttpMethod;
  /** Express form: `/v1/spaces/:spaceId`. */
  path: string;
  /** One line for the API reference. */
  summary: string;
  /** Default `caller`. */
  access?: A;
  params?: P;
  query?: Q;
  body?: B;
  /** The body's media type when it is not JSON (the SAML post binding sends a form). */
  consumes?: 'application/x-www-form-urlencoded';
  /**
   * The success body, when it is JSON: the API document publishes it and the end-to-end suites
   * check every answer against it (a schema from `@quire/contract`).
   */
  response?: Schema;
  /** The success status: default 200 with a `response` or `produces`, 204 without. */
  status?: SuccessStatus;
  /** The media type of a success body that is not JSON (files, XML). */
  produces?: string;
  /** A web page for people (published sites), not an API operation: left out of the API document. */
  website?: true;
  /**
   * Other answers without a body the operation gives, by status or class, with their description
   * (e.g. `'304'` for a revalidated ETag, `'3XX'` for redirects a script chooses).
   */
  alsoAnswers?: Record<string, string>;
  /**
   * The answer: a value is sent as JSON with 200; a {@link Reply} as it says; `undefined`
   * is a 204 unless the handler wrote the response itself (files, redirects, streams).
   */
  handler: (input: RouteInput<Parsed<P>, Parsed<Q>, Parsed<B>, A extends 'public' ? Principal | undefined : Principal>) => Promise<unknown>;
}

/** One endpoint as data: what the router mounts and what the API document describes. */
export interface Route {
  method: HttpMethod;
  path: string;
  summary: string;
  access: RouteAccess;
  params?: Schema;
  query?: Schema;
  body?: Schema;
  consumes?: 'application/x-www-form-urlencoded';
  response?: Schema;
  status: SuccessStatus;
  produces?: string;
  website?: true;
  alsoAnswers?: Record<string, string>;
  handle(req: Request, res: Response): Promise<void>;
}

/**
 * Declares an endpoint: its input is parsed with its schemas (a 400 naming the field when it
 * does not fit, or when any string of it holds a NUL character), the caller is required
 * unless the route is public, and the handler gets typed input and returns the answer.
 */
export function route<
  P extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
  A extends RouteAccess = 'caller',
>(spec: RouteSpec<P, Q, B, A>): Route {
  const access = spec.access ?? 'caller';
  return {
    method: spec.method,
    path: spec.path,
    summary: spec.summary,
    access,
    params: spec.params,
    query: spec.query,
    body: spec.body,
    consumes: spec.consumes,
    response: spec.response,
    status: spec.status ?? (spec.response || spec.produces ? 200 : 204),
    produces: spec.produces,
    website: spec.website,
    alsoAnswers: spec.alsoAnswers,
    async handle(req, res) {
      const principal = requestContext.getStore()?.principal;
      if (access === 'caller' && !principal) throw httpError.unauthorized();
      // Whether or not the route declares them: a handler may still read req.query or req.body.
      assertNoNul(req.params, 'params');
      assertNoNul(req.query, 'query');
      assertNoNul(req.body, 'body');
      const input = {
        params: spec.params ? parseInput(spec.params, req.params, 'params') : undefined,
        query: spec.query ? parseInput(spec.query, req.query, 'query') : undefined,
        body: spec.body ? parseInput(spec.body, req.body, 'body') : undefined,
        caller: principal,
        req,
        res,
      } as RouteInput<Parsed<P>, Parsed<Q>, Parsed<B>, A extends 'public' ? Principal | undefined : Principal>;
      const result = await spec.handler(input);
      if (res.headersSent) return;
      if (result instanceof Reply) {
        res.status(result.status).set(result.headers);
        if (result.body === undefined) res.end();
        else res.json(result.body);
      } else if (result === undefined) res.status(204).end();
      else res.status(200).json(result);
    },
  };
}

/** An express router serving the routes, in the order given. */
export function routerOf(routes: readonly Route[]): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '2mb' });
  for (const r of routes) {
    // The request's span (when tracing runs) is named by its route, as OpenTelemetry's HTTP conventions have it.
    const name = `${r.method.toUpperCase()} ${r.path}`;
    const handle = (req: Request, res: Response) => {
      const span = trace.getActiveSpan();
      if (span) span.updateName(name).setAttribute('http.route', r.path);
      // For the service's request metrics (by route, not by URL: ids would make a series each).
      res.locals.route = r.path;
      // A request not sampled where it entered runs in its unsampled trace (after any body parsing, whose callbacks lose it).
      return continueTrace(req.headers, () => r.handle(req, res));
    };
    if (r.consumes) router[r.method](r.path, form, handle);
    else router[r.method](r.path, handle);
  }
  return router;
}
