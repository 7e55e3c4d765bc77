// The suite's fixture prompts and resources, with the completion the completion scenario asks
// for (an argument of `test_prompt_with_arguments`) and resource subscriptions (2025 era).
import { completable, type McpServer, ResourceTemplate } from '@modelcontextprotocol/server'
import { z } from 'zod'
import { PNG_BASE64 } from './media.js'

const user = (text: string) => ({ role: 'user' as const, content: { type: 'text' as const, text } })

/** Registers the fixture prompts on `server`. */
export function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    'test_simple_prompt',
    { description: 'A prompt without arguments.' },
    async () => ({ messages: [user('This is a simple prompt for testing.')] }),
  )
  server.registerPrompt(
    'test_prompt_with_arguments',
    {
      description: 'A prompt with two required arguments.',
      argsSchema: z.object({
        arg1: completable(z.string().describe('First test argument'), (value) =>
          ['paris', 'park', 'party'].filter((v) => v.startsWith(value)),
        ),
        arg2: z.string().describe('Second test argument'),
      }),
    },
    async ({ arg1, arg2 }) => ({
      messages: [user(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`)],
    }),
  )
  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    {
      description: 'A prompt embedding the resource it is given.',
      argsSchema: z.object({ resourceUri: z.string().describe('URI of the resource to embed') }),
    },
    async ({ resourceUri }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: {
              uri: resourceUri,
              mimeType: 'text/plain',
              text: 'Embedded resource content for testing.',
            },
          },
        },
        user('Please process the embedded resource above.'),
      ],
    }),
  )
  server.registerPrompt(
    'test_prompt_with_image',
    { description: 'A prompt with an image.' },
    async () => ({
      messages: [
        { role: 'user', content: { type: 'image', data: PNG_BASE64, mimeType: 'image/png' } },
        user('Please analyze the image above.'),
      ],
    }),
  )
}

/** Registers the fixture resources, the template and subscriptions on `server`. */
export function registerResources(server: McpServer): void {
  server.registerResource(
    'static-text',
    'test://static-text',
    { description: 'A static text resource.', mimeType: 'text/plain' },
    async (uri) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'text/plain',
          text: 'This is the content of the static text resource.',
        },
      ],
    }),
  )
  server.registerResource(
    'static-binary',
    'test://static-binary',
    { description: 'A static PNG resource.', mimeType: 'image/png' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'image/png', blob: PNG_BASE64 }] }),
  )
  server.registerResource(
    'template-data',
    new ResourceTemplate('test://template/{id}/data', { list: undefined }),
    { description: 'Data for one id.', mimeType: 'application/json' },
    async (uri, { id }) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'application/json',
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
        },
      ],
    }),
  )
  server.registerResource(
    'watched-resource',
    'test://watched-resource',
    { description: 'A resource clients may subscribe to.', mimeType: 'text/plain' },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Watched resource content.' }],
    }),
  )
  // 2025 era: subscriptions are per connection; the fixture records nothing, as a stateless
  // server has no connection to send an update on.
  server.server.setRequestHandler('resources/subscribe', async () => ({}))
  server.server.setRequestHandler('resources/unsubscribe', async () => ({}))
}
