/**
 * The catalog's groups stage (groups/requestDimensions.ts): what each client request is, by the
 * dimensions a report groups by (groups/dimensions.ts), and the view the group figures and the window
 * series read. Options-independent but for the root selection (through trace_roots): built once per
 * loaded run.
 */
import { col, type ColumnDecl, type RelationDecl } from './declarations';

/** The dimension columns, in request_dimensions and in the request_groups view. */
const DIMENSION_COLUMNS: readonly ColumnDecl[] = [
  col('dim_root_node_id', 'BIGINT', 'node_id of the matched root (NULL when the request is not matched)'),
  col('dim_route', 'VARCHAR', 'route (groups/dimensions.ts)'),
  col('dim_model', 'VARCHAR', 'model'),
  col('dim_region', 'VARCHAR', 'region'),
  col('dim_priority', 'VARCHAR', 'priority class'),
  col('dim_streaming', 'VARCHAR', "'streaming' or 'non_streaming'"),
  col('dim_prompt_shape', 'VARCHAR', 'prompt shape id'),
  col('dim_input_tokens', 'DOUBLE', 'input tokens (for the input band)'),
  col('dim_output_tokens', 'DOUBLE', 'output tokens (for the output band)'),
  col('dim_status_class', 'VARCHAR', "HTTP status class ('2xx', …, 'no_status')"),
];

export const GROUP_RELATIONS: readonly RelationDecl[] = [
  {
    name: 'request_dimensions',
    kind: 'table',
    stage: 'groups',
    meaning: 'Per client_requests row, in loaded order (read beside it by position): its group dimensions, from the client record, else from the trace under its matched root.',
    reads: ['client_requests', 'client_index', 'trace_roots', 'span_index', 'top_index', 'spans'],
    options: [],
    columns: [col('row_id', 'BIGINT', '1-based position in client_requests'), ...DIMENSION_COLUMNS],
  },
  {
    name: 'request_groups',
    kind: 'view',
    stage: 'groups',
    meaning: 'request_breakdown with the dimensions of each request beside it: what the group figures and the window series read.',
    reads: ['request_breakdown', 'request_dimensions'],
    options: [],
    columns: [{ relation: 'request_breakdown' }, ...DIMENSION_COLUMNS],
  },
];
