import type { Endpoint } from '../http/endpoint.js'
import * as lookups from './lookups.js'
import * as users from './users.js'

// Every resource module's endpoints. A new resource adds one line here.
export const resourceEndpoints: Endpoint[] = [
  ...lookups.endpoints,
  ...users.endpoints,
]
