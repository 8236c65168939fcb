package io.slowpeer.hive;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UnsupportedEncodingException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.URL;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLSocketFactory;

import org.apache.hadoop.hive.conf.HiveConf;
import org.apache.hadoop.hive.ql.QueryPlan;
import org.apache.hadoop.hive.ql.hooks.ExecuteWithHookContext;
import org.apache.hadoop.hive.ql.hooks.HookContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SlowpeerHook tells a slowpeer service when a statement starts and ends on
 * this HiveServer, so that the service can send new connections to the
 * least-loaded HiveServer. Install it in hive.exec.pre.hooks,
 * hive.exec.post.hooks and hive.exec.failure.hooks; every run POSTs one
 * form (server, hook, queryId, queryStr, jobName, timestamp) to
 * slowpeer.hook.url, queryStr URL-encoded in UTF-8 before the form encoding,
 * as slowpeer's DESIGN.md ("HiveServer hook events") specifies.
 *
 * <p>The hook never throws into Hive and never waits longer than
 * slowpeer.hook.timeout.ms to connect, and as long again for the answer: an
 * event that cannot be sent is logged as a warning and dropped. It keeps no
 * state but caches (the token, the trust store, the host name), so Hive may
 * create as many instances as it likes, from any thread.
 */
public class SlowpeerHook implements ExecuteWithHookContext {
    /** The service's URL, e.g. http://nn1:9871/rest/hiveserver/send (required). */
    public static final String URL_KEY = "slowpeer.hook.url";
    /** This HiveServer's host:port (default: this host's name and hive.server2.thrift.port). */
    public static final String SERVER_KEY = "slowpeer.hook.server";
    /** Connect and read timeout in milliseconds, each (default {@link #DEFAULT_TIMEOUT_MS}). */
    public static final String TIMEOUT_KEY = "slowpeer.hook.timeout.ms";
    /** A file holding the bearer token the service wants (default: none sent). */
    public static final String TOKEN_FILE_KEY = "slowpeer.hook.token.file";
    /** A trust store for an https URL (default: the JVM's, javax.net.ssl.trustStore). */
    public static final String TRUSTSTORE_KEY = "slowpeer.hook.truststore";
    /** The trust store's password (default: none). */
    public static final String TRUSTSTORE_PASSWORD_KEY = "slowpeer.hook.truststore.password";
    /** The trust store's type (default: JKS for a *.jks file, else PKCS12). */
    public static final String TRUSTSTORE_TYPE_KEY = "slowpeer.hook.truststore.type";

    /** The default of slowpeer.hook.timeout.ms. */
    public static final int DEFAULT_TIMEOUT_MS = 1000;
    /** The port in the default server name when hive.server2.thrift.port is unset. */
    static final String DEFAULT_THRIFT_PORT = "10000";
    /** The service's limits on a decoded queryStr and a jobName, in UTF-8 bytes. */
    static final int MAX_QUERY_STR_BYTES = 4 << 20;
    static final int MAX_JOB_NAME_BYTES = 255;
    /** How much of an error answer is read into the log. */
    private static final int MAX_ANSWER_BYTES = 512;

    private static final Logger LOG = LoggerFactory.getLogger(SlowpeerHook.class);
    private static final AtomicBoolean warnedUnconfigured = new AtomicBoolean();
    private static volatile String localHost;

    /** Sends the event of hookContext; logs, never throws, when that fails. */
    @Override
    public void run(HookContext hookContext) {
        long nowMs = System.currentTimeMillis();
        String what = "event";
        String target = "";
        try {
            HiveConf conf = hookContext.getConf();
            target = trim(conf.get(URL_KEY));
            if (target.isEmpty()) {
                if (warnedUnconfigured.compareAndSet(false, true)) {
                    LOG.warn("slowpeer hook: {} is not set; no events are sent", URL_KEY);
                }
                return;
            }
            HookContext.HookType type = hookContext.getHookType();
            QueryPlan plan = hookContext.getQueryPlan();
            if (type == null || plan == null) {
                throw new IllegalStateException("Hive gave no hook type or query plan");
            }
            String queryId = trim(plan.getQueryId());
            what = type.name() + " of query " + queryId;
            String form = form(server(conf), type.name(), queryId, plan.getQueryStr(), jobName(conf), nowMs);
            post(conf, target, form);
        } catch (Exception | LinkageError e) {
            LOG.warn("slowpeer hook: {} not sent to {}: {}", what, target, e.toString());
        }
    }

    /**
     * Returns the form body of one event: every field URL-encoded in UTF-8,
     * and queryStr encoded twice. jobName loses control characters and
     * surrounding blanks; queryStr and jobName are cut to the service's
     * limits, so the service never refuses them.
     */
    static String form(String server, String hook, String queryId, String queryStr, String jobName, long timestampMs)
            throws UnsupportedEncodingException {
        String query = cutUTF8(queryStr == null ? "" : queryStr.replace('\0', ' '), MAX_QUERY_STR_BYTES);
        String job = cutUTF8(trim(jobName == null ? "" : jobName.replaceAll("[\\x00-\\x1f\\x7f]", " ")), MAX_JOB_NAME_BYTES);
        return "server=" + enc(server)
            + "&hook=" + enc(hook)
            + "&queryId=" + enc(queryId)
            + "&queryStr=" + enc(enc(query))
            + "&jobName=" + enc(trim(job))
            + "&timestamp=" + timestampMs;
    }

    /** Returns the value of slowpeer.hook.server, else this host's name and Thrift port. */
    private static String server(HiveConf conf) throws IOException {
        String server = trim(conf.get(SERVER_KEY));
        if (!server.isEmpty()) {
            return server;
        }
        String host = localHost;
        if (host == null) {
            host = InetAddress.getLocalHost().getCanonicalHostName();
            localHost = host;
        }
        String port = trim(conf.get("hive.server2.thrift.port"));
        return host + ":" + (port.isEmpty() ? DEFAULT_THRIFT_PORT : port);
    }

    /** Returns mapred.job.name, else its Hadoop 2 name mapreduce.job.name. */
    private static String jobName(HiveConf conf) {
        String name = trim(conf.get("mapred.job.name"));
        return name.isEmpty() ? trim(conf.get("mapreduce.job.name")) : name;
    }

    private static void post(HiveConf conf, String target, String form) throws IOException {
        URL url = new URL(target);
        if (!url.getProtocol().equals("http") && !url.getProtocol().equals("https")) {
            throw new IOException(URL_KEY + " is not an http or https URL");
        }
        int timeoutMs = timeoutMs(conf);
        String token = Secrets.token(trim(conf.get(TOKEN_FILE_KEY)));
        SSLSocketFactory tls = null;
        if (url.getProtocol().equals("https")) {
            tls = Secrets.trustStore(trim(conf.get(TRUSTSTORE_KEY)), conf.get(TRUSTSTORE_PASSWORD_KEY),
                trim(conf.get(TRUSTSTORE_TYPE_KEY)));
        }

        HttpURLConnection c = (HttpURLConnection) url.openConnection();
        if (tls != null) {
            ((HttpsURLConnection) c).setSSLSocketFactory(tls);
        }
        c.setConnectTimeout(timeoutMs);
        c.setReadTimeout(timeoutMs);
        c.setInstanceFollowRedirects(false);
        c.setUseCaches(false);
        c.setRequestMethod("POST");
        c.setDoOutput(true);
        c.setRequestProperty("Content-Type", "application/x-www-form-urlencoded");
        if (token != null) {
            c.setRequestProperty("Authorization", "Bearer " + token);
        }
        byte[] body = form.getBytes(StandardCharsets.US_ASCII);
        // A fixed length also stops the JDK from sending the POST again on
        // its own when the connection breaks.
        c.setFixedLengthStreamingMode(body.length);
        try (OutputStream out = c.getOutputStream()) {
            out.write(body);
        }
        int code = c.getResponseCode();
        String answer = readSome(code < 400 ? c.getInputStream() : c.getErrorStream());
        if (code == HttpURLConnection.HTTP_UNAUTHORIZED) {
            // The JDK hides the answer of a 401 in streaming mode.
            throw new IOException("HTTP 401: the service wants the token of " + TOKEN_FILE_KEY);
        }
        if (code != HttpURLConnection.HTTP_OK) {
            throw new IOException("HTTP " + code + (answer.isEmpty() ? "" : ": " + answer));
        }
    }

    private static int timeoutMs(HiveConf conf) throws IOException {
        String v = trim(conf.get(TIMEOUT_KEY));
        if (v.isEmpty()) {
            return DEFAULT_TIMEOUT_MS;
        }
        try {
            int ms = Integer.parseInt(v);
            if (ms > 0) {
                return ms;
            }
        } catch (NumberFormatException e) {
            // Reported below.
        }
        throw new IOException(TIMEOUT_KEY + " \"" + v + "\" is not a positive number of milliseconds");
    }

    /** Reads the start of an answer, closing it, so the connection can be reused. */
    private static String readSome(InputStream in) throws IOException {
        if (in == null) {
            return "";
        }
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        try (InputStream body = in) {
            byte[] buf = new byte[MAX_ANSWER_BYTES];
            for (int n; got.size() < MAX_ANSWER_BYTES && (n = body.read(buf, 0, MAX_ANSWER_BYTES - got.size())) > 0; ) {
                got.write(buf, 0, n);
            }
        }
        return new String(got.toByteArray(), StandardCharsets.UTF_8).trim();
    }

    private static String enc(String s) throws UnsupportedEncodingException {
        return URLEncoder.encode(s, "UTF-8");
    }

    private static String trim(String s) {
        return s == null ? "" : s.trim();
    }

    /** Returns the longest prefix of s, whole code points, of at most maxBytes in UTF-8. */
    static String cutUTF8(String s, int maxBytes) {
        int bytes = 0;
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (bytes > maxBytes) {
                return s.substring(0, i);
            }
            i += Character.charCount(cp);
        }
        return s;
    }
}
