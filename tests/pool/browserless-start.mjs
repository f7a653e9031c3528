// Starts browserless 2.42 (@browserless.io/browserless, installed by
// `cargo xtask test` into target/browserless) with only its Chromium
// routes: its /chrome, /edge, /firefox and /webkit routes refuse to load
// without those browsers installed, and webrig uses /chromium. The
// browser is found through PLAYWRIGHT_BROWSERS_PATH (see docs/SCALING.md).
// Settings come from browserless's own environment variables (HOST, PORT,
// TOKEN, CONCURRENT, QUEUED, TIMEOUT, ...). Run it from target/browserless.
import * as bl from '@browserless.io/browserless';

const off = [
  bl.BrowserlessChromeRoutes,
  bl.BrowserlessEdgeRoutes,
  bl.BrowserlessFirefoxRoutes,
  bl.BrowserlessWebKitRoutes,
].flatMap((routes) => Object.values(routes ?? {}));
const server = new bl.Browserless();
server.disableRoutes(...off);
await server.start();
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, async () => {
    await server.stop();
    process.exit(0);
  });
}
