// The suite's multi-round fixtures (SEP-2322, InputRequiredResult): tools and one prompt that
// answer `input_required` until the client retries with the responses they asked for. On a
// 2025-era request the SDK's legacy shim fulfils the same requests server-to-client, so each is
// written once for both eras. `requestState` is sealed by the SDK's HMAC codec and checked by
// the server's `requestState.verify` hook before a handler runs (the tampered-state scenario).
import {
  acceptedContent,
  inputRequired,
  inputResponse,
  type McpServer,
  type RequestStateCodec,
} from '@modelcontextprotocol/server'

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })

const askName = (message: string) =>
  inputRequired.elicit({
    message,
    requestedSchema: {
      type: 'object',
      properties: { name: { type: 'string' } },
      required: ['name'],
    },
  })

interface Ctx {
  mcpReq: {
    inputResponses?: Record<string, unknown>
    requestState: <T>() => T | undefined
    _meta?: Record<string, unknown>
  }
}

/** Registers the multi-round fixture tools and prompt on `server`. */
export function registerInputRequiredTools(
  server: McpServer,
  codec: RequestStateCodec<{ round: number }>,
): void {
  const greet = async (ctx: Ctx) => {
    const answer = acceptedContent(ctx.mcpReq.inputResponses, 'user_name')
    if (typeof answer?.name !== 'string') {
      return inputRequired({ inputRequests: { user_name: askName('What is your name?') } })
    }
    return text(`Hello, ${answer.name}!`)
  }
  server.registerTool(
    'test_input_required_result_elicitation',
    { description: 'Asks the client for a name, then greets it.' },
    greet,
  )
  // The stateless scenario's probe: what streams back on the request must never be an
  // independent server-to-client request (the question rides in the result instead).
  server.registerTool(
    'test_streaming_elicitation',
    { description: 'Asks the client for a name, then greets it.' },
    greet,
  )
  server.registerTool(
    'test_input_required_result_sampling',
    { description: 'Asks the client model a question, then reports the answer.' },
    async (ctx: Ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'capital_question')
      if (answer.kind !== 'sampling') {
        return inputRequired({
          inputRequests: {
            capital_question: inputRequired.createMessage({
              messages: [
                {
                  role: 'user',
                  content: { type: 'text', text: 'What is the capital of France?' },
                },
              ],
              maxTokens: 100,
            }),
          },
        })
      }
      const content = answer.result.content as { type?: string; text?: string }
      return text(`The model answered: ${content.type === 'text' ? content.text : '(not text)'}`)
    },
  )
  server.registerTool(
    'test_input_required_result_list_roots',
    { description: 'Asks the client for its roots, then lists them.' },
    async (ctx: Ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'client_roots')
      if (answer.kind !== 'roots') {
        return inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } })
      }
      return text(`Roots: ${answer.roots.map((r) => r.uri).join(', ')}`)
    },
  )
  server.registerTool(
    'test_input_required_result_request_state',
    { description: 'Asks for a confirmation and carries sealed state across the round.' },
    async (ctx: Ctx) => {
      const state = ctx.mcpReq.requestState<{ round: number }>()
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'confirm')
      if (state?.round === 1 && answer !== undefined) return text('state-ok: confirmed')
      return inputRequired({
        inputRequests: {
          confirm: inputRequired.elicit({
            message: 'Please confirm',
            requestedSchema: {
              type: 'object',
              properties: { ok: { type: 'boolean' } },
              required: ['ok'],
            },
          }),
        },
        requestState: await codec.mint({ round: 1 }),
      })
    },
  )
  server.registerTool(
    'test_input_required_result_multiple_inputs',
    { description: 'Asks for an elicitation, a sampling and the roots at once.' },
    async (ctx: Ctx) => {
      const responses = ctx.mcpReq.inputResponses
      const complete =
        ctx.mcpReq.requestState<{ round: number }>()?.round === 1 &&
        inputResponse(responses, 'user_name').kind === 'elicit' &&
        inputResponse(responses, 'greeting').kind === 'sampling' &&
        inputResponse(responses, 'client_roots').kind === 'roots'
      if (complete) return text('All three inputs received.')
      return inputRequired({
        inputRequests: {
          user_name: askName('What is your name?'),
          greeting: inputRequired.createMessage({
            messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }],
            maxTokens: 50,
          }),
          client_roots: inputRequired.listRoots(),
        },
        requestState: await codec.mint({ round: 1 }),
      })
    },
  )
  server.registerTool(
    'test_input_required_result_multi_round',
    { description: 'Asks for a name, then a colour, carrying sealed state across rounds.' },
    async (ctx: Ctx) => {
      const round = ctx.mcpReq.requestState<{ round: number }>()?.round ?? 0
      const responses = ctx.mcpReq.inputResponses
      if (round === 2 && acceptedContent(responses, 'step2') !== undefined) {
        return text('Both steps completed.')
      }
      if (round === 1 && acceptedContent(responses, 'step1') !== undefined) {
        return inputRequired({
          inputRequests: {
            step2: inputRequired.elicit({
              message: 'Step 2: What is your favorite color?',
              requestedSchema: {
                type: 'object',
                properties: { color: { type: 'string' } },
                required: ['color'],
              },
            }),
          },
          requestState: await codec.mint({ round: 2 }),
        })
      }
      return inputRequired({
        inputRequests: { step1: askName('Step 1: What is your name?') },
        requestState: await codec.mint({ round: 1 }),
      })
    },
  )
  server.registerTool(
    'test_input_required_result_tampered_state',
    { description: 'Carries sealed state; a tampered state is refused before this runs.' },
    async (ctx: Ctx) => {
      if (ctx.mcpReq.requestState<{ round: number }>()?.round === 1) {
        return text('state verified')
      }
      return inputRequired({
        inputRequests: {
          confirm: inputRequired.elicit({
            message: 'Please confirm',
            requestedSchema: {
              type: 'object',
              properties: { ok: { type: 'boolean' } },
              required: ['ok'],
            },
          }),
        },
        requestState: await codec.mint({ round: 1 }),
      })
    },
  )
  server.registerTool(
    'test_input_required_result_capabilities',
    { description: 'Asks only for what the client declared it can answer.' },
    async (ctx: Ctx) => {
      const responses = ctx.mcpReq.inputResponses
      if (responses !== undefined && Object.keys(responses).length > 0) {
        return text('Inputs received.')
      }
      const declared = server.server.getClientCapabilities() ?? {}
      const requests: Record<string, ReturnType<typeof inputRequired.listRoots>> = {}
      if (declared.elicitation !== undefined) requests.user_name = askName('What is your name?')
      if (declared.sampling !== undefined) {
        requests.greeting = inputRequired.createMessage({
          messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }],
          maxTokens: 50,
        })
      }
      if (declared.roots !== undefined) requests.client_roots = inputRequired.listRoots()
      if (Object.keys(requests).length === 0) return text('The client declared no input kind.')
      return inputRequired({ inputRequests: requests })
    },
  )
  server.registerPrompt(
    'test_input_required_result_prompt',
    { description: 'A prompt that asks the client for its context first.' },
    async (ctx: Ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'user_context')
      if (typeof answer?.context !== 'string') {
        return inputRequired({
          inputRequests: {
            user_context: inputRequired.elicit({
              message: 'What context should the prompt use?',
              requestedSchema: {
                type: 'object',
                properties: { context: { type: 'string' } },
                required: ['context'],
              },
            }),
          },
        })
      }
      return {
        messages: [{ role: 'user', content: { type: 'text', text: `Context: ${answer.context}` } }],
      }
    },
  )
}
