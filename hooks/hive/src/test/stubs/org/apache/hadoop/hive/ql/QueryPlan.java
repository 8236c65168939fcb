// Compile-only declaration of the part of Hive 3.1's
// ql/src/java/org/apache/hadoop/hive/ql/QueryPlan.java that SlowpeerHook and
// the test driver use: the public no-argument constructor, getQueryId/
// setQueryId, getQueryStr and setQueryString. Not Hive's code.
package org.apache.hadoop.hive.ql;

import java.io.Serializable;

public class QueryPlan implements Serializable {
    private static final long serialVersionUID = 1L;

    private String queryString;
    private String queryId;

    public QueryPlan() {
    }

    public String getQueryStr() {
        return queryString;
    }

    public String getQueryId() {
        return queryId;
    }

    public void setQueryString(String queryString) {
        this.queryString = queryString;
    }

    public void setQueryId(String queryId) {
        this.queryId = queryId;
    }
}
