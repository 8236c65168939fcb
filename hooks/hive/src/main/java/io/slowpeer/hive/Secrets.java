package io.slowpeer.hive;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * Secrets reads the bearer token and the trust store SlowpeerHook needs,
 * once per file version: each is read again only when its file's
 * modification time or size changes, so a rotated token or trust store is
 * taken without restarting Hive. Safe for concurrent use.
 */
final class Secrets {
    private Secrets() {
    }

    /** One file's parsed content and the version of the file it came from. */
    private static final class Cached<T> {
        final String key;
        final long modifiedMs;
        final long size;
        final T value;

        Cached(String key, File f, T value) {
            this.key = key;
            this.modifiedMs = f.lastModified();
            this.size = f.length();
            this.value = value;
        }

        boolean fresh(String key, File f) {
            return this.key.equals(key) && modifiedMs == f.lastModified() && size == f.length();
        }
    }

    private static volatile Cached<String> token;
    private static volatile Cached<SSLSocketFactory> trust;

    /** Returns the token held in path, trimmed; null for an empty path (no token configured). */
    static String token(String path) throws IOException {
        if (path.isEmpty()) {
            return null;
        }
        File f = new File(path);
        Cached<String> c = token;
        if (c != null && c.fresh(path, f)) {
            return c.value;
        }
        String t;
        try {
            t = new String(Files.readAllBytes(f.toPath()), StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new IOException("read " + SlowpeerHook.TOKEN_FILE_KEY + " " + path + ": " + e, e);
        }
        if (t.isEmpty()) {
            throw new IOException(SlowpeerHook.TOKEN_FILE_KEY + " " + path + " holds no token");
        }
        token = new Cached<String>(path, f, t);
        return t;
    }

    /**
     * Returns a socket factory that trusts the certificates of the trust
     * store at path; null for an empty path, which leaves the JVM's default
     * (the javax.net.ssl.trustStore system properties, else the JDK's cacerts).
     */
    static SSLSocketFactory trustStore(String path, String password, String type) throws IOException {
        if (path.isEmpty()) {
            return null;
        }
        if (type.isEmpty()) {
            type = path.toLowerCase().endsWith(".jks") ? "JKS" : "PKCS12";
        }
        String key = path + "\u0000" + type + "\u0000" + (password == null ? "" : password);
        File f = new File(path);
        Cached<SSLSocketFactory> c = trust;
        if (c != null && c.fresh(key, f)) {
            return c.value;
        }
        SSLSocketFactory factory;
        try (InputStream in = new FileInputStream(f)) {
            KeyStore store = KeyStore.getInstance(type);
            store.load(in, password == null || password.isEmpty() ? null : password.toCharArray());
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(store);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, tmf.getTrustManagers(), null);
            factory = ctx.getSocketFactory();
        } catch (IOException | GeneralSecurityException e) {
            throw new IOException("load " + SlowpeerHook.TRUSTSTORE_KEY + " " + path + ": " + e, e);
        }
        trust = new Cached<SSLSocketFactory>(key, f, factory);
        return factory;
    }
}
