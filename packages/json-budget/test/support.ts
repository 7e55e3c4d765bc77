// Test support (not a test file): runs `fn` and returns the AdmissionError it throws.
import { type AdmissionError, isAdmissionError } from '../src/index.js'

/** The refusal `fn` throws; fails the test when it returns or throws something else. */
export function refusal(fn: () => unknown): AdmissionError {
  try {
    fn()
  } catch (error) {
    if (isAdmissionError(error)) return error
    throw error
  }
  throw new Error('expected a refusal')
}
