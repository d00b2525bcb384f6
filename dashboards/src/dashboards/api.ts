import { THRESHOLDS } from '../../../alerts/src/thresholds.ts';
import { perSecond, quantiles, SHOP, shopDashboard, stat, timeseries } from '../panels.ts';

const requests = (matchers = '') => `http_requests_total{${SHOP}${matchers}}`;
const latency = (quantile: number) =>
  `histogram_quantile(${quantile}, sum by (le) (rate(http_request_duration_seconds_bucket{${SHOP}}[$__rate_interval])))`;

export function apiDashboard() {
  return shopDashboard(
    'shop-api',
    'Shop / API',
    'The GraphQL and REST api: traffic, errors, latency and payload sizes (http_* metrics of the api).',
  )
    .withPanel(
      timeseries({
        title: 'Request rate',
        description:
          'Requests answered per second, by route. A sudden drop while the storefront still has visitors means requests no longer reach the api.',
        unit: 'reqps',
        queries: [{ expr: perSecond('http_requests_total', { by: 'route' }), legend: '{{route}}' }],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Error rate by status',
        description:
          'Share of requests answered 4xx or 5xx, by status code. 5xx above the red line (1%) fires ApiHighErrorRate: the api or a dependency fails. A rise in 4xx is usually a client or a release that changed the schema.',
        unit: 'percentunit',
        alertThreshold: THRESHOLDS.apiErrorRatio,
        queries: [
          {
            expr: `${perSecond('http_requests_total', { by: 'status', matchers: ', status=~"4..|5.."' })}\n  / scalar(${perSecond('http_requests_total')})`,
            legend: '{{status}}',
          },
        ],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Latency p50 / p95 / p99',
        description:
          'Time from request received to response sent. p95 above the red line (500 ms) for 10 minutes fires ApiLatencyHigh: look at the database pool and the cache first.',
        unit: 's',
        alertThreshold: THRESHOLDS.apiLatencyP95Seconds,
        queries: quantiles(latency, [0.5, 0.95, 0.99]),
      }),
    )
    .withPanel(
      timeseries({
        title: 'Requests in progress',
        description:
          'Requests being handled right now, by route. A climb without more traffic means requests are waiting on something: a database connection, the cache, a slow query.',
        unit: 'short',
        queries: [{ expr: `sum by (route) (http_requests_inprogress{${SHOP}})`, legend: '{{route}}' }],
      }),
    )
    .withPanel(
      timeseries({
        title: 'Response size p95',
        description:
          'p95 of response body sizes, by route. A jump means a query now returns far more than before (a missing page limit), which costs latency and bandwidth.',
        unit: 'bytes',
        queries: [
          {
            expr: `histogram_quantile(0.95, sum by (route, le) (rate(http_response_size_bytes_bucket{${SHOP}}[$__rate_interval])))`,
            legend: '{{route}}',
          },
        ],
      }),
    )
    .withPanel(
      stat({
        title: 'Totals',
        description: 'Requests answered and 5xx answers over the time range shown. Any 5xx is a request a customer saw fail.',
        unit: 'short',
        queries: [
          { expr: `sum(increase(${requests()}[$__range]))`, legend: 'requests' },
          { expr: `sum(increase(${requests(', status=~"5.."')}[$__range])) or vector(0)`, legend: '5xx' },
        ],
      }),
    );
}
