import type usearch from 'usearch'
import type { Index } from 'usearch'

// usearch (HNSW over quantised vectors, save/load/view) is loaded when an index is first needed, so mas and the
// server start as fast as before (as ONNX Runtime is, docs/decisions.md §27).

export type UsearchIndex = Index

export async function loadUsearch(): Promise<typeof usearch> {
  return (await import('usearch')).default
}
