// HookBody prints, one JSON object a line, the exact POST body that a Hive
// hook sends for a few statements, and the statement itself. It encodes as
// the hook does: queryStr with java.net.URLEncoder in UTF-8, then every
// field again for the application/x-www-form-urlencoded body (the same
// rule Apache HttpClient's UrlEncodedFormEntity applies).
//
// Regenerate hook_bodies.jsonl with:
//
//	cd hiveserver/testdata && java HookBody.java > hook_bodies.jsonl
import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

public class HookBody {
    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    static String json(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    public static void main(String[] args) throws Exception {
        String[][] cases = {
            // {hook, queryId, jobName, queryStr}
            {"PRE_EXEC_HOOK", "hive_20240101120000_1", "日报_daily",
             "SELECT name AS 名字 FROM 用户表 WHERE city = '北京'"},
            {"POST_EXEC_HOOK", "hive_20240101120000_2", "plus",
             "SELECT a + b, c+1, '+' FROM t"},
            {"ON_FAILURE_HOOK", "hive_20240101120000_3", "percent",
             "SELECT * FROM t WHERE name LIKE '%abc%' AND pct = '100%' AND x = '%41'"},
            {"PRE_EXEC_HOOK", "hive_20240101120000_4", "amp",
             "SELECT a & b FROM t WHERE x = 'a&b=c' AND y = '&amp;'"},
            {"PRE_EXEC_HOOK", "hive_20240101120000_5", "mixed job 名",
             "INSERT OVERWRITE TABLE t\nSELECT '%2B', '%25', ' ', \"q\", '\\\\', '~*#?=', '😀'\n\tFROM s -- done"},
            {"POST_EXEC_HOOK", "hive_20240101120000_6", "", ""},
        };
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        long ts = 1704110400000L;
        for (String[] c : cases) {
            String body = "server=" + enc("hs1.example.com:10000")
                + "&hook=" + enc(c[0])
                + "&queryId=" + enc(c[1])
                + "&queryStr=" + enc(enc(c[3]))
                + "&jobName=" + enc(c[2])
                + "&timestamp=" + ts++;
            out.println("{\"hook\":" + json(c[0]) + ",\"queryId\":" + json(c[1]) + ",\"jobName\":" + json(c[2])
                + ",\"queryStr\":" + json(c[3]) + ",\"body\":" + json(body) + "}");
        }
    }
}
