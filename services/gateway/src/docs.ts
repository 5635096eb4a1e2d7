import path from 'node:path';
import express, { Router } from 'express';

/** Swagger UI's browser bundle (the swagger-ui-dist package: files only, no code of ours to run). */
const RENDERER_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));

/** The reference page: Swagger UI over /v1/openapi.json, with "try it" calls to this same server. */
const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Quire API reference</title>
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
  </head>
  <body>
    <main id="reference"></main>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/init.js"></script>
  </body>
</html>
`;

// No online validator badge (it would send the document elsewhere), "try it" on by default.
const INIT = `window.ui = SwaggerUIBundle({
  url: '/v1/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  tryItOutEnabled: true,
  validatorUrl: null,
  persistAuthorization: false,
});
`;

/**
 * The page and the renderer's files, served by the gateway itself: no CDN, and a content
 * security policy that lets the page talk to nothing but this server.
 */
export function docsRouter(): Router {
  const router = Router();
  const policy = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self'";
  router.use('/docs', (_req, res, next) => {
    res.set('Content-Security-Policy', policy);
    next();
  });
  router.get(['/docs', '/docs/'], (_req, res) => {
    res.type('html').send(PAGE);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(INIT);
  });
  router.use('/docs/assets', express.static(RENDERER_DIR, { index: false, maxAge: '1h' }));
  return router;
}
