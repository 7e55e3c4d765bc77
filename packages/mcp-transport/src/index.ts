export {
  decorateTransport,
  type InboundContext,
  isJsonRpcRequest,
  type JsonRpcErrorObject,
  TransportDecorator,
  type TransportHooks,
} from './decorator.js'
