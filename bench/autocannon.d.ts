// The part of autocannon's API the benchmarks use (the package ships no types).
declare module 'autocannon' {
  export interface Request {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string
  }
  export interface Options {
    url: string
    connections?: number
    duration?: number
    method?: string
    headers?: Record<string, string>
    body?: string
    requests?: Request[]
    timeout?: number
  }
  export interface Histogram {
    average: number
    mean: number
    p50: number
    p99: number
    max: number
    total: number
  }
  export interface Result {
    requests: Histogram
    latency: Histogram
    throughput: Histogram
    errors: number
    timeouts: number
    non2xx: number
    duration: number
    statusCodeStats: Record<string, { count: number }>
  }
  function autocannon(opts: Options): Promise<Result>
  export default autocannon
}
