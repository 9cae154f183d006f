import { storedFrames, type PeriodReportRequest, type PeriodReportService, type ReportStorage } from '@wiflow/analytics-common';
import { RetailAnalyzer, type RetailMetricsRecord } from './analyzer.js';
import { RetailOptionsSchema, type RetailOptionsInput } from './options.js';

/**
 * The runtime config section `retail`: zones, funnel and options of the period report (the
 * keys of the `retail.analytics` node), so the report of stored data counts as the node does.
 */
export const RetailReportConfigSchema = RetailOptionsSchema.prefault({});

/**
 * Retail's period report (service `PeriodReportTokens.retail`, shaped by the pose API's
 * GET /analytics/retail): the stored frames of the period replayed through a RetailAnalyzer,
 * so the API and the node answer with one definition of each metric.
 */
export class RetailPeriodReport implements PeriodReportService<RetailMetricsRecord> {
  constructor(private readonly options: () => RetailOptionsInput = () => ({})) {}

  /** The retail metrics record of the stored frames in the request's range. */
  async report(storage: ReportStorage, request: PeriodReportRequest): Promise<RetailMetricsRecord> {
    const analyzer = new RetailAnalyzer(this.options());
    for await (const frame of storedFrames(storage, request)) analyzer.update(frame);
    return analyzer.metrics();
  }
}
