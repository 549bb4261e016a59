package dev.dispatcher.app.api;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import reactor.netty.NettyPipeline;

/**
 * Closes an HTTP/1.1 connection whose request head does not arrive whole within {@link #TIMEOUT}, counted from the
 * connection's opening for its first request and from the first byte of each later one: a head trickled a byte at a
 * time (a slowloris) would otherwise hold its connection for ever, since Netty's read and request timeouts start only
 * once a head is complete and {@code server.netty.idle-timeout} is reset by every byte. Its size is bounded apart
 * ({@code server.max-http-request-header-size}).
 *
 * <p>Two handlers around the HTTP codec of one connection, sharing its state on the connection's event loop: before
 * the codec, the first bytes of a head arm the deadline; after it, a decoded request head disarms it, and the end of
 * its response lets the next bytes arm it again. Not thread-safe: used on its connection's event loop only.
 */
final class RequestHeadDeadline {

    /** How long a request head may take to arrive. */
    static final Duration TIMEOUT = Duration.ofSeconds(5);

    private enum State { AWAITING_HEAD, READING_HEAD, IN_REQUEST }

    private final long timeoutMillis;
    private State state = State.READING_HEAD; // the first head is timed from the connection's opening
    private ScheduledFuture<?> deadline;

    private RequestHeadDeadline(Duration timeout) {
        this.timeoutMillis = timeout.toMillis();
    }

    /** Adds the deadline around the connection's HTTP/1.1 codec; a pipeline without one (HTTP/2) is left as it is. */
    static void install(ChannelPipeline pipeline, Duration timeout) {
        if (pipeline.get(NettyPipeline.HttpCodec) == null) {
            return;
        }
        RequestHeadDeadline shared = new RequestHeadDeadline(timeout);
        pipeline.addBefore(NettyPipeline.HttpCodec, "dispatcher.headDeadlineStart", shared.new Start());
        pipeline.addAfter(NettyPipeline.HttpCodec, "dispatcher.headDeadlineEnd", shared.new End());
    }

    private void arm(ChannelHandlerContext ctx) {
        disarm();
        deadline = ctx.executor().schedule(() -> {
            if (state == State.READING_HEAD) {
                ctx.channel().close();
            }
        }, timeoutMillis, TimeUnit.MILLISECONDS);
    }

    private void disarm() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }

    /** Before the codec: raw bytes. */
    private final class Start extends ChannelInboundHandlerAdapter {

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            if (ctx.channel().isActive()) {
                arm(ctx);
            }
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            arm(ctx);
            ctx.fireChannelActive();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (state == State.AWAITING_HEAD && msg instanceof ByteBuf bytes && bytes.isReadable()) {
                state = State.READING_HEAD;
                arm(ctx);
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            disarm();
            ctx.fireChannelInactive();
        }
    }

    /** After the codec: request heads in, responses out. */
    private final class End extends ChannelDuplexHandler {

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpRequest) {
                state = State.IN_REQUEST;
                disarm();
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (msg instanceof LastHttpContent) {
                state = State.AWAITING_HEAD;
            }
            ctx.write(msg, promise);
        }
    }
}
