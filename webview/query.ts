/** Query Run… (dist/webview/query.js): a SQL box over a run's documented views. */
import { boot } from './shared/boot';
import { QueryApp } from './query/app';
import css from './query/query.css';

boot('query', css, (root, bridge) => {
  const app = new QueryApp(root, bridge);
  (window as { phasewiseQuery?: QueryApp }).phasewiseQuery = app;
  return app;
});
